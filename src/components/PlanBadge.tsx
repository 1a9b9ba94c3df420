import { Badge, type BadgeProps } from '@chakra-ui/react';
import { planBadgePalette } from '../lib/planDisplay';

/** The plan as a badge: its id in capitals, in the plan's colour (product spec §4). */
export function PlanBadge({ plan, ...props }: { plan: string } & BadgeProps) {
  return (
    <Badge colorPalette={planBadgePalette(plan)} variant="solid" size="lg" {...props}>
      {plan.toUpperCase()}
    </Badge>
  );
}
