import { Box, Flex, Link } from '@chakra-ui/react';
import { Outlet } from 'react-router-dom';
import * as messages from '../content/messages';
import { Footer } from './Footer';
import { TopBar } from './TopBar';

export const MAIN_ID = 'main-content';

/** The frame around every route: skip link, top bar, the page, footer. */
export function Layout() {
  return (
    <Flex direction="column" minH="100dvh" bg="bg">
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
        <Outlet />
      </Box>
      <Footer />
    </Flex>
  );
}
