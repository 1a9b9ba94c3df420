import { Badge, Box, Card, Heading, HStack, List, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import * as messages from '../content/messages';
import { formatPrice } from '../../contract/plans';
import type { PlanOffer } from '../content/plans';
import { lineIcon } from './icons';

const CheckIcon = lineIcon(<path d="M5 12l5 5 9-10" />);

interface Props {
  plan: PlanOffer;
  /** Extra badge beside the name (e.g. the user's current plan). */
  badge?: ReactNode;
  /** The card's call to action. */
  action: ReactNode;
}

/** One pricing card: name, price, description, features and an action. */
export function PlanCard({ plan, badge, action }: Props) {
  const headingId = `plan-${plan.id}`;
  return (
    <Card.Root
      as="article"
      aria-labelledby={headingId}
      variant="outline"
      borderWidth={plan.popular ? '2px' : '1px'}
      borderColor={plan.popular ? 'brand.solid' : 'border'}
      shadow={plan.popular ? 'lg' : 'sm'}
      position="relative"
    >
      <Card.Body gap="5">
        <Stack gap="2">
          <HStack justify="space-between" align="center" minH="6">
            <Heading as="h3" id={headingId} size="md">
              {plan.name}
            </Heading>
            <HStack gap="2">
              {plan.popular && (
                <Badge colorPalette="brand" variant="solid">
                  {messages.landing.mostPopular}
                </Badge>
              )}
              {badge}
            </HStack>
          </HStack>
          <Text color="fg.muted" fontSize="sm">
            {plan.description}
          </Text>
        </Stack>
        <Box>
          <Text as="span" fontSize="4xl" fontWeight="bold" letterSpacing="tight">
            {formatPrice(plan)}
          </Text>
          <Text as="span" color="fg.muted">
            {messages.landing.perMonth}
          </Text>
        </Box>
        <List.Root gap="2" variant="plain">
          {plan.features.map((feature) => (
            <List.Item key={feature} fontSize="sm" alignItems="flex-start">
              <List.Indicator asChild color="brand.fg" mt="0.5">
                <CheckIcon boxSize="4" />
              </List.Indicator>
              {feature}
            </List.Item>
          ))}
        </List.Root>
      </Card.Body>
      <Card.Footer>{action}</Card.Footer>
    </Card.Root>
  );
}
