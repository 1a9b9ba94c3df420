import { Box, Button, Container, Flex, HStack, Link, Text } from '@chakra-ui/react';
import { NavLink, RouterLink } from './RouterLink';
import { LogoIcon, MoonIcon, SunIcon } from '../components/icons';
import * as messages from '../content/messages';
import { chooseColorMode } from '../lib/colorMode';
import { useColorMode } from '../lib/useColorMode';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { useAuthRef, useAuthSelector } from './auth';

const t = messages.layout;

/** Signed in: the account links (a second row on phones), the greeting and Logout. */
function SignedInBar() {
  const auth = useAuthRef();
  const fullName = useAuthSelector((s) => s.context.user?.full_name ?? '');
  const busy = useAuthSelector((s) => s.matches({ signedIn: 'loggingOut' }));
  const links: Array<[string, string]> = [
    ['/dashboard', t.dashboard],
    ['/subscription', t.subscription],
    ['/profile', t.profile],
  ];
  return (
    <>
      <HStack
        as="nav"
        aria-label={t.mainNav}
        order={{ base: 3, md: 0 }}
        w={{ base: 'full', md: 'auto' }}
        ms={{ md: 'auto' }}
      >
        <HStack as="ul" gap="1" listStyleType="none" w="full" justify={{ base: 'space-between', md: 'flex-start' }}>
          {links.map(([to, label]) => (
            <li key={to}>
              <Button asChild variant="ghost" size="sm" css={{ '&[aria-current=page]': { bg: 'brand.subtle', color: 'brand.fg' } }}>
                <NavLink to={to}>{label}</NavLink>
              </Button>
            </li>
          ))}
        </HStack>
      </HStack>
      <HStack gap="3">
        {/* Shortened with an ellipsis on narrow screens rather than hidden: the greeting is part of the bar. */}
        <Text fontSize="sm" color="fg.muted" truncate maxW={{ base: '32', sm: '60', lg: '72' }} title={t.welcome(fullName)}>
          {t.welcome(fullName)}
        </Text>
        <ColorModeToggle />
        <Button variant="outline" size="sm" onClick={() => auth.send({ type: 'logout' })} loading={busy} loadingText={t.logout}>
          {t.logout}
        </Button>
      </HStack>
    </>
  );
}

/**
 * Dark mode on or off (the system's mode until the visitor chooses). The icon follows the page's
 * class through CSS, so the prerendered HTML is right before any script runs; aria-pressed needs
 * the mode, known once the page is hydrated.
 */
function ColorModeToggle() {
  const mode = useColorMode();
  return (
    <Button
      variant="ghost"
      size="sm"
      px="0"
      aria-label={t.darkMode}
      // What src/staticPage.ts looks for on the pages it serves without React.
      data-color-mode-toggle
      aria-pressed={mode === null ? undefined : mode === 'dark'}
      onClick={() => chooseColorMode(mode === 'dark' ? 'light' : 'dark')}
    >
      <MoonIcon boxSize="5" display={{ base: 'block', _dark: 'none' }} />
      <SunIcon boxSize="5" display={{ base: 'none', _dark: 'block' }} />
    </Button>
  );
}

function SignedOutNav() {
  return (
    <>
      <Button asChild variant="ghost" size="sm">
        <RouterLink to="/login">{t.login}</RouterLink>
      </Button>
      <Button asChild colorPalette="brand" size="sm">
        <RouterLink to="/register">{t.signUp}</RouterLink>
      </Button>
    </>
  );
}

export function TopBar() {
  const { brandName } = useRuntimeConfig();
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  return (
    <Box as="header" borderBottomWidth="1px" bg="bg/90" backdropFilter="blur(8px)" position="sticky" top="0" zIndex="sticky">
      <Container maxW="6xl">
        <Flex minH="16" py={{ base: '2', md: '0' }} align="center" justify="space-between" gap="4" wrap="wrap">
          <Link asChild fontWeight="bold" fontSize="lg" color="fg" _hover={{ textDecoration: 'none' }}>
            <RouterLink to="/" aria-label={t.homeLink(brandName)}>
              <LogoIcon boxSize="7" color="brand.solid" />
              <Text as="span">{brandName}</Text>
            </RouterLink>
          </Link>
          {signedIn ? (
            <SignedInBar />
          ) : (
            <HStack gap="2">
              <ColorModeToggle />
              <HStack as="nav" aria-label={t.mainNav} gap="2">
                <SignedOutNav />
              </HStack>
            </HStack>
          )}
        </Flex>
      </Container>
    </Box>
  );
}
