import { Box, Flex, Link } from '@chakra-ui/react';
import { lazy, Suspense, useLayoutEffect } from 'react';
import { Outlet, useLocation, useNavigationType } from 'react-router-dom';
import * as messages from '../content/messages';
import { Footer } from './Footer';
import { TopBar } from './TopBar';
import { useAuthSelector } from './auth';

export const MAIN_ID = 'main-content';

/**
 * A link followed inside the app opens the new page at its top (an address with a #fragment at
 * that element, which the browser finds itself); back and forward are left to the browser's own
 * scroll restoration.
 */
function OpenPagesAtTheirTop() {
  const { pathname, hash } = useLocation();
  const navigation = useNavigationType();
  useLayoutEffect(() => {
    // At once: the page's smooth scrolling (for in-page links) would glide down the old page's length.
    if (navigation !== 'POP' && !hash) window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  }, [pathname, hash, navigation]);
  return null;
}

// Its own chunk: only an account that has not verified its address loads it.
const VerifyEmailBanner = lazy(() => import(/* webpackChunkName: "verify-email-banner" */ '../components/VerifyEmailBanner'));

/** Signed-in pages, while the account's address is unverified: the reminder with "Resend link". */
export function UnverifiedEmailBanner() {
  const email = useAuthSelector((s) => (s.hasTag('signedIn') && s.context.user?.email_verified === false ? s.context.user.email : null));
  return email === null ? null : (
    <Suspense fallback={null}>
      <VerifyEmailBanner email={email} />
    </Suspense>
  );
}

// Its own chunk too: only a member held by the team's requirement loads it.
const TwoFactorRequiredBanner = lazy(() => import(/* webpackChunkName: "two-factor-required" */ '../components/TwoFactorRequiredBanner'));

/** Signed-in pages, while the team requires a second factor the account does not have: the way to set one up. */
export function SecondFactorRequiredBanner() {
  const held = useAuthSelector((s) => s.hasTag('signedIn') && s.context.user?.two_factor_required === true);
  return held ? (
    <Suspense fallback={null}>
      <TwoFactorRequiredBanner />
    </Suspense>
  ) : null;
}

/** The frame around every route: skip link, top bar, the page, footer. */
export function Layout() {
  return (
    <Flex direction="column" minH="100dvh" bg="bg">
      <OpenPagesAtTheirTop />
      <Link
        href={`#${MAIN_ID}`}
        position="absolute"
        left="3"
        top="-20"
        zIndex="skipLink"
        bg="bg"
        px="4"
        py="2"
        rounded="md"
        _focus={{ top: '3' }}
      >
        {messages.layout.skipToContent}
      </Link>
      <TopBar />
      <UnverifiedEmailBanner />
      <SecondFactorRequiredBanner />
      <Box as="main" id={MAIN_ID} tabIndex={-1} flex="1" outline="none">
        <Outlet />
      </Box>
      <Footer />
    </Flex>
  );
}
