import { Alert, Box, Button, Container, Stack } from '@chakra-ui/react';
import { RouterLink } from '../app/RouterLink';
import * as messages from '../content/messages';

const t = messages.security;

/**
 * Signed-in pages while the team requires two-step sign-in and the account has no second factor
 * (most calls answer 403 `two_factor_required`): what to do, and the way to the profile's set-up.
 * src/app/Layout.tsx loads it then.
 */
export default function TwoFactorRequiredBanner() {
  return (
    <Box borderBottomWidth="1px" bg="bg">
      <Container maxW="6xl" py="3">
        <Alert.Root status="warning" aria-label={t.requiredTitle}>
          <Alert.Indicator />
          <Alert.Content>
            <Stack direction={{ base: 'column', md: 'row' }} gap="3" align={{ base: 'flex-start', md: 'center' }} justify="space-between">
              <Alert.Description>{t.requiredText}</Alert.Description>
              <Button asChild size="sm" variant="outline" flexShrink={0}>
                <RouterLink to="/profile#two-step-sign-in">{t.requiredAction}</RouterLink>
              </Button>
            </Stack>
          </Alert.Content>
        </Alert.Root>
      </Container>
    </Box>
  );
}
