import { Box, Button, Container, Flex, HStack, Link, Stack, Text } from '@chakra-ui/react';
import { useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { NavLink, RouterLink } from './RouterLink';
import { LogoIcon, MenuIcon, MoonIcon, SunIcon } from '../components/icons';
import * as messages from '../content/messages';
import { toggleColorMode } from '../lib/colorMode';
import { SESSION_CHECK_ATTRIBUTE } from '../../machines/shared/tokenStorage';
import { useColorMode } from '../lib/useColorMode';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { useAuthRef, useAuthSelector } from './auth';
import { MembershipChart } from './membership';

const t = messages.layout;

const ACCOUNT_LINKS: Array<[string, string]> = [
  ['/dashboard', t.dashboard],
  ['/usage', t.usage],
  ['/functions', t.functions],
  ['/subscription', t.subscription],
  ['/profile', t.profile],
];

/**
 * Team members, whatever their plan, also get the team page (decisions.md): whether the person is
 * in a team is the membership chart's (src/app/membership.tsx), asked once per sign-in and told by
 * the pages where joining or leaving happens.
 */
function useAccountLinks(): Array<[string, string]> {
  const inTeam = MembershipChart.useSelector((s) => s.context.inTeam);
  return inTeam ? [...ACCOUNT_LINKS.slice(0, 3), ['/team', t.team], ...ACCOUNT_LINKS.slice(3)] : ACCOUNT_LINKS;
}

const currentPageStyle = { '&[aria-current=page]': { bg: 'brand.subtle', color: 'brand.fg' } };

/** 'Welcome, {full name}'; in the bar shortened with an ellipsis when very long, the whole of it in its title. */
function Greeting({ truncate = false }: { truncate?: boolean }) {
  const greeting = t.welcome(useAuthSelector((s) => s.context.user?.full_name ?? ''));
  return (
    <Text fontSize="sm" color="fg.muted" truncate={truncate} title={truncate ? greeting : undefined}>
      {greeting}
    </Text>
  );
}

function LogoutButton(props: React.ComponentProps<typeof Button>) {
  const auth = useAuthRef();
  const busy = useAuthSelector((s) => s.matches({ signedIn: 'loggingOut' }));
  return (
    <Button variant="outline" size="sm" onClick={() => auth.send({ type: 'logout' })} loading={busy} loadingText={t.logout} {...props}>
      {t.logout}
    </Button>
  );
}

/** Signed in, from tablets up: the account links, the greeting and Logout in the bar itself. */
function SignedInBar({ links }: { links: Array<[string, string]> }) {
  return (
    <HStack hideBelow="md" flex="1" minW="0" gap="4">
      <nav aria-label={t.mainNav}>
        <HStack as="ul" gap="1" listStyleType="none">
          {links.map(([to, label]) => (
            <li key={to}>
              <Button asChild variant="ghost" size="sm" css={currentPageStyle}>
                <NavLink to={to}>{label}</NavLink>
              </Button>
            </li>
          ))}
        </HStack>
      </nav>
      <HStack gap="3" ms="auto" minW="0">
        <Greeting truncate />
        <ColorModeToggle />
        <LogoutButton />
      </HStack>
    </HStack>
  );
}

/**
 * Signed in, on a phone: one row with a menu button, whose panel (a disclosure, under the bar)
 * holds the greeting in full, the account links and Logout. Opening it moves focus to its first
 * link; Escape closes it and returns focus to the button, as does following a link.
 */
function SignedInMenu({ links }: { links: Array<[string, string]> }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const { pathname } = useLocation();
  // Any other navigation (the back button, say) closes it too.
  const [shownFor, setShownFor] = useState(pathname);
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }
  useEffect(() => {
    if (open) panel.current?.querySelector('a')?.focus();
  }, [open]);
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  return (
    <>
      <HStack hideFrom="md" gap="1">
        <ColorModeToggle />
        <Button
          ref={button}
          variant="ghost"
          size="sm"
          aria-label={t.menu}
          aria-expanded={open}
          aria-controls={open ? panelId : undefined}
          onClick={() => setOpen(!open)}
        >
          <MenuIcon boxSize="5" />
        </Button>
      </HStack>
      {open && (
        <Box
          ref={panel}
          id={panelId}
          hideFrom="md"
          position="absolute"
          insetInline="0"
          top="100%"
          bg="bg"
          borderBottomWidth="1px"
          boxShadow="md"
          onKeyDown={(event) => {
            if (event.key === 'Escape') close(true);
          }}
          // Tabbing out of the panel (or clicking elsewhere) closes it.
          onBlur={(event) => {
            const next = event.relatedTarget as Node | null;
            if (next && !panel.current?.contains(next) && next !== button.current) close(false);
          }}
        >
          <Container maxW="6xl" py="3">
            <Stack gap="3">
              <Greeting />
              <nav aria-label={t.mainNav}>
                <Stack as="ul" gap="1" listStyleType="none">
                  {links.map(([to, label]) => (
                    <li key={to}>
                      <Button asChild variant="ghost" size="md" w="full" justifyContent="flex-start" css={currentPageStyle}>
                        <NavLink to={to} onClick={() => close(true)}>
                          {label}
                        </NavLink>
                      </Button>
                    </li>
                  ))}
                </Stack>
              </nav>
              <LogoutButton alignSelf="flex-start" />
            </Stack>
          </Container>
        </Box>
      )}
    </>
  );
}

/**
 * Dark mode on or off (the system's mode until the visitor chooses). The icon follows the page's
 * class through CSS, so the prerendered HTML is right before any script runs; aria-pressed needs
 * the mode, which the color-mode script gives the prerendered button (src/colorModeBoot.ts).
 */
function ColorModeToggle() {
  const mode = useColorMode();
  return (
    <Button
      variant="ghost"
      size="sm"
      px="0"
      aria-label={t.darkMode}
      // COLOR_MODE_TOGGLE_ATTRIBUTE: what the scripts of a prerendered page look for. The
      // color-mode script gives a prerendered button aria-pressed before it hydrates, which React
      // is told to expect; it renders the same once it knows the mode.
      data-color-mode-toggle
      suppressHydrationWarning
      aria-pressed={mode === null ? undefined : mode === 'dark'}
      onClick={toggleColorMode}
    >
      <MoonIcon boxSize="5" display={{ base: 'block', _dark: 'none' }} />
      <SunIcon boxSize="5" display={{ base: 'none', _dark: 'block' }} />
    </Button>
  );
}

/**
 * Login and Sign Up: also what the prerendered pages show, and what the app renders while a stored
 * session is checked (so hydration matches). Hidden, their space kept, while <html> says a session
 * is being checked: a signed-in visitor never sees them on a full page load.
 */
function SignedOutBar() {
  return (
    <HStack gap="2">
      <ColorModeToggle />
      <HStack as="nav" aria-label={t.mainNav} gap="2" css={{ [`html[${SESSION_CHECK_ATTRIBUTE}] &`]: { visibility: 'hidden' } }}>
        <Button asChild variant="ghost" size="sm">
          <RouterLink to="/login">{t.login}</RouterLink>
        </Button>
        <Button asChild colorPalette="brand" size="sm">
          <RouterLink to="/register">{t.signUp}</RouterLink>
        </Button>
      </HStack>
    </HStack>
  );
}

/** The signed-in bar (tablets up) and menu (phones), with one set of links. */
function SignedIn() {
  const links = useAccountLinks();
  return (
    <>
      <SignedInBar links={links} />
      <SignedInMenu links={links} />
    </>
  );
}

export function TopBar() {
  const { brandName } = useRuntimeConfig();
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  const checking = useAuthSelector((s) => s.hasTag('loading'));
  useEffect(() => {
    if (!checking) document.documentElement.removeAttribute(SESSION_CHECK_ATTRIBUTE);
  }, [checking]);
  return (
    <Box as="header" borderBottomWidth="1px" bg="bg/90" backdropFilter="blur(8px)" position="sticky" top="0" zIndex="sticky">
      <Container maxW="6xl">
        <Flex h="16" align="center" justify="space-between" gap="4">
          <Link asChild fontWeight="bold" fontSize="lg" color="fg" flexShrink="0" _hover={{ textDecoration: 'none' }}>
            <RouterLink to="/" aria-label={t.homeLink(brandName)}>
              <LogoIcon boxSize="7" color="brand.solid" />
              <Text as="span">{brandName}</Text>
            </RouterLink>
          </Link>
          {signedIn ? (
            <SignedIn />
          ) : (
            <SignedOutBar />
          )}
        </Flex>
      </Container>
    </Box>
  );
}
