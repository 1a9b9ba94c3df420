import { Badge, Box, Button, Card, Container, Heading, HStack, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { useAuthSelector } from '../app/auth';
import { RouterLink } from '../app/RouterLink';
import { NEW_TAB, NewTabNote } from '../components/ExternalLink';
import { lineIcon } from '../components/icons';
import { PlanCard } from '../components/PlanCard';
import { StarRating } from '../components/StarRating';
import * as messages from '../content/messages';
import { PLAN_OFFERS } from '../content/plans';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';

const ChartIcon = lineIcon(
  <>
    <path d="M3 3v18h18" />
    <path d="M7 15l4-4 3 3 5-6" />
  </>,
);
const FunctionIcon = lineIcon(
  <>
    <path d="M9 20c2 0 2.5-2 3-5l1.5-7c.5-2.5 1.5-4 3.5-4" />
    <path d="M7 11h8" />
  </>,
);
const BookIcon = lineIcon(
  <>
    <path d="M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2z" />
    <path d="M4 21V5" />
    <path d="M9 7h6" />
  </>,
);
const SparkIcon = lineIcon(
  <>
    <path d="M12 3v4M12 17v4M3 12h4M17 12h4" />
    <path d="M12 8l1.5 2.5L16 12l-2.5 1.5L12 16l-1.5-2.5L8 12l2.5-1.5z" />
  </>,
);
const LockIcon = lineIcon(
  <>
    <rect x="4" y="11" width="16" height="10" rx="2" />
    <path d="M8 11V7a4 4 0 0 1 8 0v4" />
  </>,
);

const t = messages.landing;
const FEATURE_ICONS = [ChartIcon, FunctionIcon, BookIcon, SparkIcon];

/**
 * A section the browser lays out and paints only when it nears the screen (until then it counts
 * as 600 px high, then as high as it last was), which on a slow phone takes a good part of the
 * work off the page's load. Only below the last anchor (#pricing): a jump to an anchor lands by
 * the heights above it, and these are guesses until drawn. Find-in-page still reaches it.
 */
const BELOW_THE_FOLD = { contentVisibility: 'auto', containIntrinsicSize: 'auto 600px' } as const;

function SectionHeading({ id, title, lead }: { id: string; title: string; lead: string }) {
  return (
    <Stack gap="3" textAlign="center" maxW="2xl" mx="auto" mb="10">
      <Heading as="h2" id={id} size={{ base: '2xl', md: '3xl' }} letterSpacing="tight">
        {title}
      </Heading>
      <Text color="fg.muted" fontSize="lg">
        {lead}
      </Text>
    </Stack>
  );
}

export default function LandingPage() {
  const { brandName, marketplaceUrl } = useRuntimeConfig();
  usePageTitle(t.title(brandName), { namesBrand: true });
  // /register only bounces a signed-in visitor to the dashboard: the free calls lead there
  // directly, and a plan to the page where it is bought.
  const signedIn = useAuthSelector((s) => s.hasTag('signedIn'));
  const freeTarget = signedIn ? '/dashboard' : '/register';
  const planTarget = signedIn ? '/subscription' : '/register';
  return (
    <>
      <Box as="section" aria-labelledby="hero-title" bgGradient="to-b" gradientFrom="brand.subtle" gradientTo="bg">
        <Container maxW="4xl" py={{ base: '16', md: '24' }} textAlign="center">
          <Stack gap="6" align="center">
            <Badge colorPalette="brand" variant="subtle" size="lg" rounded="full" px="3">
              {t.eyebrow}
            </Badge>
            <Heading as="h1" id="hero-title" size={{ base: '4xl', md: '6xl' }} letterSpacing="tight" lineHeight="1.1">
              {t.heroTitle}
            </Heading>
            <Text fontSize={{ base: 'lg', md: 'xl' }} color="fg.muted" maxW="2xl">
              {t.heroLead}
            </Text>
            <Stack direction={{ base: 'column', sm: 'row' }} gap="3" w={{ base: 'full', sm: 'auto' }}>
              <Button asChild size="xl" colorPalette="brand">
                <RouterLink to={freeTarget}>{t.tryFree}</RouterLink>
              </Button>
              <Button asChild size="xl" variant="outline">
                <a href={marketplaceUrl} {...NEW_TAB}>
                  {t.getAddOn}
                  <NewTabNote />
                </a>
              </Button>
            </Stack>
            <Stack gap="1" align="center">
              <HStack gap="2">
                <StarRating stars={5} />
                <Text fontWeight="medium">{t.socialProof}</Text>
              </HStack>
              <Text fontSize="sm" color="fg.muted" display="flex" alignItems="center" gap="1.5">
                <LockIcon boxSize="3.5" />
                {t.privacyNote}
              </Text>
            </Stack>
          </Stack>
        </Container>
      </Box>

      <Container as="section" id="features" aria-labelledby="features-title" maxW="6xl" py="20" scrollMarginTop="16">
        <SectionHeading id="features-title" title={t.featuresTitle} lead={t.featuresLead} />
        <SimpleGrid columns={{ base: 1, sm: 2, lg: 4 }} gap="6">
          {t.features.map((feature, i) => {
            const FeatureIcon = FEATURE_ICONS[i] ?? SparkIcon;
            return (
              <Card.Root key={feature.title} variant="outline">
                <Card.Body gap="3">
                  <Box bg="brand.muted" color="brand.fg" rounded="lg" p="2.5" w="fit-content">
                    <FeatureIcon boxSize="6" />
                  </Box>
                  <Heading as="h3" size="md">
                    {feature.title}
                  </Heading>
                  <Text color="fg.muted">{feature.text}</Text>
                </Card.Body>
              </Card.Root>
            );
          })}
        </SimpleGrid>
      </Container>

      <Box as="section" id="pricing" aria-labelledby="pricing-title" bg="bg.subtle" py="20" scrollMarginTop="16">
        <Container maxW="6xl">
          <SectionHeading id="pricing-title" title={t.pricingTitle} lead={t.pricingLead} />
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="6" alignItems="stretch">
            {PLAN_OFFERS.map((plan) => (
              <PlanCard
                key={plan.id}
                plan={plan}
                action={
                  <Button asChild w="full" colorPalette="brand" variant={plan.popular ? 'solid' : 'outline'}>
                    <RouterLink to={planTarget}>{t.choosePlan(plan.name)}</RouterLink>
                  </Button>
                }
              />
            ))}
          </SimpleGrid>
        </Container>
      </Box>

      <Container as="section" aria-labelledby="testimonials-title" maxW="6xl" py="20" {...BELOW_THE_FOLD}>
        <SectionHeading id="testimonials-title" title={t.testimonialsTitle} lead={t.socialProof} />
        <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
          {t.testimonials.map((item) => (
            <Card.Root key={item.name} as="figure" variant="subtle">
              <Card.Body gap="4">
                <StarRating stars={5} />
                <Text as="blockquote" fontSize="md">
                  “{item.quote}”
                </Text>
                <Box as="figcaption">
                  <Text fontWeight="semibold">{item.name}</Text>
                  <Text fontSize="sm" color="fg.muted">
                    {item.role}
                  </Text>
                </Box>
              </Card.Body>
            </Card.Root>
          ))}
        </SimpleGrid>
      </Container>

      <Container as="section" aria-labelledby="cta-title" maxW="4xl">
        <Stack
          gap="5"
          align="center"
          textAlign="center"
          bg="brand.solid"
          color="brand.contrast"
          rounded="2xl"
          px={{ base: '6', md: '12' }}
          py="14"
        >
          <Heading as="h2" id="cta-title" size={{ base: '2xl', md: '3xl' }}>
            {t.ctaTitle}
          </Heading>
          <Text fontSize="lg" opacity={0.9}>
            {t.ctaLead}
          </Text>
          <Button asChild size="xl" bg="white" color="brand.700" _hover={{ bg: 'brand.50' }}>
            <RouterLink to={freeTarget}>{t.startTrial}</RouterLink>
          </Button>
        </Stack>
      </Container>
    </>
  );
}
