import { Box, Container, Link, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { RouterLink } from './RouterLink';
import { ExternalLink } from '../components/ExternalLink';
import { LogoIcon } from '../components/icons';
import * as messages from '../content/messages';
import { useClientSnapshot } from '../lib/useClientSnapshot';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';

const t = messages.footer;

/** The year of the build (webpack and the prerender both set it): what a prerendered page shows. */
const BUILD_YEAR = Number(process.env.BUILD_YEAR) || new Date().getFullYear();

function Column({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack as="nav" aria-label={title} gap="2">
      <Text as="h2" fontWeight="semibold" fontSize="sm" color="fg">
        {title}
      </Text>
      {children}
    </Stack>
  );
}

export function Footer() {
  const { brandName, supportEmail, marketplaceUrl } = useRuntimeConfig();
  // This year by the browser's clock, once hydrated: a page built last year shows the right year.
  const year = useClientSnapshot(() => new Date().getFullYear(), BUILD_YEAR);
  const linkProps = { color: 'fg.muted', fontSize: 'sm', width: 'fit-content' } as const;
  return (
    <Box as="footer" borderTopWidth="1px" bg="bg.subtle" mt="16">
      <Container maxW="6xl" py="12">
        <SimpleGrid columns={{ base: 1, md: 4 }} gap="8">
          <Stack gap="3">
            <Text fontWeight="bold" display="flex" alignItems="center" gap="2">
              <LogoIcon boxSize="6" color="brand.solid" />
              {brandName}
            </Text>
            <Text fontSize="sm" color="fg.muted">
              {t.tagline}
            </Text>
          </Stack>
          <Column title={t.product}>
            <Link asChild {...linkProps}>
              <RouterLink to="/#features">{t.features}</RouterLink>
            </Link>
            <ExternalLink href={marketplaceUrl} {...linkProps}>
              {t.getAddOn}
            </ExternalLink>
            <Link asChild {...linkProps}>
              <RouterLink to="/subscription">{t.pricing}</RouterLink>
            </Link>
          </Column>
          <Column title={t.supportAndLegal}>
            <Link asChild {...linkProps}>
              <RouterLink to="/support">{t.support}</RouterLink>
            </Link>
            <Link asChild {...linkProps}>
              <RouterLink to="/privacy">{t.privacy}</RouterLink>
            </Link>
            <Link asChild {...linkProps}>
              <RouterLink to="/terms">{t.terms}</RouterLink>
            </Link>
          </Column>
          <Stack gap="2">
            <Text as="h2" fontWeight="semibold" fontSize="sm">
              {t.contact}
            </Text>
            <Text fontSize="sm" color="fg.muted">
              {t.contactLead}{' '}
              <Link href={`mailto:${supportEmail}`} color="brand.fg">
                {supportEmail}
              </Link>
            </Text>
          </Stack>
        </SimpleGrid>
        {/* data-year: what src/staticPage.ts updates on the pages it serves without React. */}
        <Text mt="10" pt="6" borderTopWidth="1px" fontSize="sm" color="fg.muted" data-year={year}>
          {t.copyright(year, brandName)}
        </Text>
      </Container>
    </Box>
  );
}
