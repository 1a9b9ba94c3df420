import { Box, Button, Container, Flex, HStack, Link, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router-dom';
import { LogoIcon } from '../components/icons';
import { messages } from '../content/messages';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';

const t = messages.layout;

export function TopBar() {
  const { brandName } = useRuntimeConfig();
  return (
    <Box as="header" borderBottomWidth="1px" bg="bg/90" backdropFilter="blur(8px)" position="sticky" top="0" zIndex="sticky">
      <Container maxW="6xl">
        <Flex h="16" align="center" justify="space-between" gap="4">
          <Link asChild fontWeight="bold" fontSize="lg" color="fg" _hover={{ textDecoration: 'none' }}>
            <RouterLink to="/" aria-label={t.homeLink(brandName)}>
              <LogoIcon boxSize="7" color="brand.solid" />
              <Text as="span">{brandName}</Text>
            </RouterLink>
          </Link>
          <HStack as="nav" aria-label={t.mainNav} gap="2">
            <Button asChild variant="ghost" size="sm">
              <RouterLink to="/login">{t.login}</RouterLink>
            </Button>
            <Button asChild colorPalette="brand" size="sm">
              <RouterLink to="/register">{t.signUp}</RouterLink>
            </Button>
          </HStack>
        </Flex>
      </Container>
    </Box>
  );
}
