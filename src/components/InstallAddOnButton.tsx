import { Button } from '@chakra-ui/react';
import * as messages from '../content/messages';
import { useRuntimeConfig } from '../lib/useRuntimeConfig';
import { NEW_TAB, NewTabNote } from './ExternalLink';

/** "Install Add-on": the Marketplace listing in a new tab (the dashboard's get-started card and the Quick Start Guide). */
export function InstallAddOnButton() {
  const { marketplaceUrl } = useRuntimeConfig();
  return (
    <Button asChild colorPalette="brand">
      <a href={marketplaceUrl} {...NEW_TAB}>
        {messages.dashboard.installAddOn}
        <NewTabNote />
      </a>
    </Button>
  );
}
