import { Container, Heading, Link, List, Stack, Text } from '@chakra-ui/react';
import { Fragment, type ReactNode } from 'react';
import * as messages from '../content/messages';
import type { LegalDocument } from '../content/legal';
import { usePageTitle } from '../lib/usePageTitle';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';

/** Turns a legal text's {brand}/{supportEmail}/{generalEmail} tokens into the brand and mailto links. */
function useFill(): (text: string) => ReactNode {
  const { brandName, supportEmail, generalEmail } = useRuntimeConfig();
  const mailboxes: Record<string, string> = { supportEmail, generalEmail };
  return (text) =>
    text.split(/(\{\w+\})/).map((part, i) => {
      const name = part.slice(1, -1);
      if (part === '{brand}') return brandName;
      const address = part.startsWith('{') ? mailboxes[name] : undefined;
      return address ? (
        <Link key={i} href={`mailto:${address}`} color="brand.fg" fontWeight="medium">
          {address}
        </Link>
      ) : (
        <Fragment key={i}>{part}</Fragment>
      );
    });
}

const slug = (heading: string) => heading.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export function LegalDocumentView({ document: doc }: { document: LegalDocument }) {
  usePageTitle(doc.title);
  const fill = useFill();
  return (
    <Container as="article" maxW="3xl" py={{ base: '10', md: '16' }} aria-labelledby="legal-title">
      <Stack gap="3" mb="10">
        <Heading as="h1" id="legal-title" size={{ base: '3xl', md: '4xl' }} letterSpacing="tight">
          {doc.title}
        </Heading>
        <Text color="fg.muted" fontSize="sm">
          {messages.legal.lastUpdated(doc.lastUpdated)}
        </Text>
        <Text fontSize="lg">{fill(doc.intro)}</Text>
      </Stack>
      <Stack as="nav" aria-label={messages.legal.contents} gap="1" mb="10" p="5" bg="bg.subtle" rounded="lg">
        <Text fontWeight="semibold">{messages.legal.contents}</Text>
        <List.Root as="ol" ps="5" gap="1">
          {doc.sections.map((section) => (
            <List.Item key={section.heading} fontSize="sm">
              <Link href={`#${slug(section.heading)}`} color="brand.fg">
                {section.heading}
              </Link>
            </List.Item>
          ))}
        </List.Root>
      </Stack>
      <Stack gap="8">
        {doc.sections.map((section, index) => (
          <Stack as="section" key={section.heading} gap="3" aria-labelledby={slug(section.heading)}>
            <Heading as="h2" id={slug(section.heading)} size="xl" scrollMarginTop="20">
              {index + 1}. {section.heading}
            </Heading>
            {section.paragraphs.map((paragraph) => (
              <Text key={paragraph} lineHeight="tall">
                {fill(paragraph)}
              </Text>
            ))}
            {section.items && (
              <List.Root ps="5" gap="2">
                {section.items.map((item) => (
                  <List.Item key={item} lineHeight="tall">
                    {fill(item)}
                  </List.Item>
                ))}
              </List.Root>
            )}
          </Stack>
        ))}
      </Stack>
    </Container>
  );
}
