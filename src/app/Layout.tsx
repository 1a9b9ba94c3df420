import { Box, Flex, Link } from '@chakra-ui/react';
import { useDeferredValue, useLayoutEffect, useState } from 'react';
import { Outlet, useLocation, useNavigationType } from 'react-router-dom';
import * as messages from '../content/messages';
import { Footer } from './Footer';
import { TopBar } from './TopBar';
import { useAuthSelector } from './auth';
import { preloadable } from '../lib/preloadable';
import type { User } from '../../machines/shared/api';

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

/*
 * The banners above every signed-in page are chunks of their own, loaded only by an account that
 * needs one. Each is drawn from a deferred value and suspends without a boundary of its own: the
 * render that would first show it waits, with what is on screen kept (the guard's spinner, while
 * the session check has just answered), until its chunk is in. So the page and its banner are
 * drawn together; with a boundary of their own, the page came first and the banner pushed it down
 * (on /profile, a layout shift of 0.070 on a desktop screen and 0.185 on a phone for an unverified
 * account: tests/e2e/layoutShift.test.ts).
 * They are the first thing in <main>, where the guard's spinner was: above it, they moved <main>,
 * spinner and all, down as they came.
 * The first render reads none (React's initial deferred value), so no render ever waits on a chunk
 * with nothing on screen, unless the chunk is in already: when the session check answered before
 * the app booted, the first render draws the page itself, and the start-up code loads the banner
 * that answer needs first (`preloadBanners`, src/app/mountApp.tsx), so it comes with the page.
 * A banner no longer needed goes at once.
 */

const verifyEmailBanner = preloadable(() => import(/* webpackChunkName: "verify-email-banner" */ '../components/VerifyEmailBanner'));
const twoFactorRequiredBanner = preloadable(() => import(/* webpackChunkName: "two-factor-required" */ '../components/TwoFactorRequiredBanner'));

/** Loads the chunks of the banners `user` (a session check's answer) has above every page, before the first render. */
export function preloadBanners(user: Partial<User> | undefined): Promise<unknown> {
  return Promise.all([
    user?.email_verified === false && verifyEmailBanner.preload(),
    user?.two_factor_required === true && twoFactorRequiredBanner.preload(),
  ]);
}

/** Signed-in pages, while the account's address is unverified: the reminder with "Resend link". */
export function UnverifiedEmailBanner() {
  const unverified = useAuthSelector((s) => (s.hasTag('signedIn') && s.context.user?.email_verified === false ? s.context.user.email : null));
  // Shown in the deferred render (or at once, loaded already), gone at once.
  const [Banner] = useState(() => verifyEmailBanner.loaded() ?? verifyEmailBanner.Lazy);
  const email = useDeferredValue(unverified, Banner === verifyEmailBanner.Lazy ? null : unverified);
  return unverified === null || email === null ? null : <Banner email={email} />;
}

/** Signed-in pages, while the team requires a second factor the account does not have: the way to set one up. */
export function SecondFactorRequiredBanner() {
  const required = useAuthSelector((s) => s.hasTag('signedIn') && s.context.user?.two_factor_required === true);
  const [Banner] = useState(() => twoFactorRequiredBanner.loaded() ?? twoFactorRequiredBanner.Lazy);
  const shown = useDeferredValue(required, Banner === twoFactorRequiredBanner.Lazy ? false : required);
  return required && shown ? <Banner /> : null;
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
      <Box as="main" id={MAIN_ID} tabIndex={-1} flex="1" outline="none">
        <UnverifiedEmailBanner />
        <SecondFactorRequiredBanner />
        <Outlet />
      </Box>
      <Footer />
    </Flex>
  );
}
