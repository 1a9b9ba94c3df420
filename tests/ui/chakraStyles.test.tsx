import fs from 'node:fs';
import path from 'node:path';
import { act, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Checkbox,
  Code,
  Container,
  ChakraProvider,
  createSystem,
  createToaster,
  DataList,
  defaultBaseConfig,
  Dialog,
  Fieldset,
  defaultConfig,
  Field,
  Heading,
  Icon,
  Input,
  Link,
  List,
  NativeSelect,
  Portal,
  Progress,
  Skeleton,
  Spinner,
  Stat,
  Table,
  Textarea,
  Toast,
  Toaster,
} from '@chakra-ui/react';
import { AppProviders } from '../../src/app/AppProviders';
import { system } from '../../src/app/system';
import { defaultRuntimeConfig } from '../../contract/runtimeConfig';

/**
 * The guard against a component that silently renders without its recipe: src/app/theme.ts keeps
 * only the recipes the app lists, and a recipe can lose a slot when configs are merged (the toast
 * once lost `root` that way and every toast was bare text). Every component the app imports from
 * Chakra is rendered here with every part the app uses, in the app's provider, and each part must
 * carry its recipe's class and have the recipe's own declarations in effect, as Chakra's full
 * default theme would give it. Over 300 lines because of the samples: one rendering of each part
 * of each Chakra component src/ imports.
 */

const SRC = path.join(__dirname, '../../src');

/** Chakra with its whole default theme: what each part looks like when nothing is left out. */
const reference = createSystem(defaultConfig);

/** The sources of src/, where the app's components are. */
const sources = () =>
  fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => fs.readFileSync(path.join(SRC, file), 'utf8'));

/** What src/ imports from '@chakra-ui/react' and, for namespaces, which parts it uses. */
function chakraImports(): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  for (const source of sources()) {
    for (const [, list = ''] of source.matchAll(/import\s*\{([^}]+)\}\s*from\s*'@chakra-ui\/react'/g)) {
      for (const specifier of list.split(',')) {
        // Types (inline `type X`, or named `…Props`) and functions (lower case) render nothing.
        const name = specifier.trim().split(/\s+as\s+/)[0];
        if (!name || !/^[A-Z]/.test(name) || name.endsWith('Props')) continue;
        const parts = used.get(name) ?? new Set<string>();
        for (const [, part = ''] of source.matchAll(new RegExp(`\\b${name}\\.([A-Z]\\w*)`, 'g'))) parts.add(part);
        used.set(name, parts);
      }
    }
  }
  return used;
}

/**
 * Components with no recipe of their own in Chakra's theme: layout primitives (style props only)
 * and wrappers. A name listed here that has a recipe fails the test below, so the list cannot hide
 * a component from the check.
 */
const WITHOUT_RECIPE = new Set([
  'Box',
  'Center',
  // Headless: its trigger is rendered as the app's own Button (asChild).
  'Clipboard',
  'ChakraProvider',
  'Flex',
  'Grid',
  'GridItem',
  'HStack',
  'Portal',
  'SimpleGrid',
  'Stack',
  'Text',
  'Toaster',
  'VisuallyHidden',
]);

const testToaster = createToaster({ placement: 'bottom-end' });

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** Each component with a recipe, rendered with every part the app uses; a part is marked by its name. */
const SAMPLES: Record<string, { render: () => ReactNode; show?: () => void; withoutElement?: string[] }> = {
  Alert: {
    render: () => (
      <Alert.Root data-testid="Alert.Root" status="error">
        <Alert.Indicator data-testid="Alert.Indicator" />
        <Alert.Content data-testid="Alert.Content">
          <Alert.Title data-testid="Alert.Title">Title</Alert.Title>
          <Alert.Description data-testid="Alert.Description">Text</Alert.Description>
        </Alert.Content>
      </Alert.Root>
    ),
  },
  Badge: { render: () => <Badge data-testid="Badge">Free</Badge> },
  Button: { render: () => <Button data-testid="Button">Go</Button> },
  Card: {
    render: () => (
      <Card.Root data-testid="Card.Root">
        <Card.Body data-testid="Card.Body">Body</Card.Body>
        <Card.Footer data-testid="Card.Footer">Footer</Card.Footer>
      </Card.Root>
    ),
  },
  Checkbox: {
    render: () => (
      <Checkbox.Root data-testid="Checkbox.Root" defaultChecked>
        <Checkbox.HiddenInput data-testid="Checkbox.HiddenInput" />
        <Checkbox.Control data-testid="Checkbox.Control" />
        <Checkbox.Label data-testid="Checkbox.Label">Run queries</Checkbox.Label>
      </Checkbox.Root>
    ),
  },
  Code: { render: () => <Code data-testid="Code">sm_live_…a1b2</Code> },
  Dialog: {
    // As src/components/team/TeamSettings.tsx renders its confirmation, open.
    render: () => (
      <Dialog.Root role="alertdialog" open>
        <Portal>
          <Dialog.Backdrop data-testid="Dialog.Backdrop" />
          <Dialog.Positioner data-testid="Dialog.Positioner">
            <Dialog.Content data-testid="Dialog.Content">
              <Dialog.Header data-testid="Dialog.Header">
                <Dialog.Title data-testid="Dialog.Title">Make Grace Hopper the owner?</Dialog.Title>
              </Dialog.Header>
              <Dialog.Body data-testid="Dialog.Body">Text</Dialog.Body>
              <Dialog.Footer data-testid="Dialog.Footer">
                <Button>Cancel</Button>
              </Dialog.Footer>
            </Dialog.Content>
          </Dialog.Positioner>
        </Portal>
      </Dialog.Root>
    ),
    // The root holds the dialog's state and renders no element.
    withoutElement: ['Root'],
  },
  Fieldset: {
    render: () => (
      <Fieldset.Root data-testid="Fieldset.Root" invalid>
        <Fieldset.Legend data-testid="Fieldset.Legend">Scopes</Fieldset.Legend>
        <Fieldset.ErrorText data-testid="Fieldset.ErrorText">Choose at least one scope</Fieldset.ErrorText>
      </Fieldset.Root>
    ),
  },
  Container: { render: () => <Container data-testid="Container">Text</Container> },
  DataList: {
    render: () => (
      <DataList.Root data-testid="DataList.Root">
        <DataList.Item data-testid="DataList.Item">
          <DataList.ItemLabel data-testid="DataList.ItemLabel">Label</DataList.ItemLabel>
          <DataList.ItemValue data-testid="DataList.ItemValue">Value</DataList.ItemValue>
        </DataList.Item>
      </DataList.Root>
    ),
  },
  Field: {
    render: () => (
      <Field.Root data-testid="Field.Root" invalid required>
        <Field.Label data-testid="Field.Label">
          Name <Field.RequiredIndicator data-testid="Field.RequiredIndicator" />
        </Field.Label>
        <Input />
        <Field.ErrorText data-testid="Field.ErrorText">Required</Field.ErrorText>
        <Field.HelperText data-testid="Field.HelperText">Help</Field.HelperText>
      </Field.Root>
    ),
  },
  Heading: { render: () => <Heading data-testid="Heading">Title</Heading> },
  Icon: {
    render: () => (
      <Icon data-testid="Icon">
        <svg viewBox="0 0 24 24" />
      </Icon>
    ),
  },
  Input: { render: () => <Input data-testid="Input" aria-label="Name" /> },
  Link: { render: () => <Link data-testid="Link" href="/">Home</Link> },
  List: {
    render: () => (
      <List.Root data-testid="List.Root">
        <List.Item data-testid="List.Item">
          <List.Indicator data-testid="List.Indicator">•</List.Indicator>
          Item
        </List.Item>
      </List.Root>
    ),
  },
  NativeSelect: {
    render: () => (
      <NativeSelect.Root data-testid="NativeSelect.Root">
        <NativeSelect.Field data-testid="NativeSelect.Field" aria-label="Role">
          <option>Member</option>
        </NativeSelect.Field>
        <NativeSelect.Indicator data-testid="NativeSelect.Indicator" />
      </NativeSelect.Root>
    ),
  },
  Table: {
    render: () => (
      <Table.ScrollArea data-testid="Table.ScrollArea">
        <Table.Root data-testid="Table.Root">
          <Table.Caption data-testid="Table.Caption">Caption</Table.Caption>
          <Table.Header data-testid="Table.Header">
            <Table.Row data-testid="Table.Row">
              <Table.ColumnHeader data-testid="Table.ColumnHeader">Name</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body data-testid="Table.Body">
            <tr>
              <Table.Cell data-testid="Table.Cell">Ada</Table.Cell>
            </tr>
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>
    ),
  },
  Progress: {
    render: () => (
      <Progress.Root data-testid="Progress.Root" value={40}>
        <Progress.Track data-testid="Progress.Track">
          <Progress.Range data-testid="Progress.Range" />
        </Progress.Track>
      </Progress.Root>
    ),
  },
  Skeleton: { render: () => <Skeleton data-testid="Skeleton" h="4" /> },
  Spinner: { render: () => <Spinner data-testid="Spinner" /> },
  Stat: {
    render: () => (
      <Stat.Root data-testid="Stat.Root">
        <Stat.Label data-testid="Stat.Label">Queries</Stat.Label>
        <Stat.ValueText data-testid="Stat.ValueText">12</Stat.ValueText>
      </Stat.Root>
    ),
  },
  Textarea: { render: () => <Textarea data-testid="Textarea" aria-label="Message" /> },
  Toast: {
    // As src/components/ToastRegion.tsx renders a toast, through a toaster of its own.
    render: () => (
      <Toaster toaster={testToaster}>
        {(toast) => (
          <Toast.Root data-testid="Toast.Root">
            <Toast.Indicator data-testid="Toast.Indicator" />
            <Toast.Title data-testid="Toast.Title">{toast.title}</Toast.Title>
            <Toast.Description data-testid="Toast.Description">{toast.description}</Toast.Description>
            <Toast.CloseTrigger data-testid="Toast.CloseTrigger" />
          </Toast.Root>
        )}
      </Toaster>
    ),
    show: () => testToaster.create({ type: 'error', title: 'Title', description: 'Text', closable: true }),
  },
};

const kebab = (property: string) => property.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);


/** The plain declarations (no nested selectors or conditions) the reference recipe gives `slot`. */
function recipeDeclarations(recipeKey: string, slot: string | undefined): Array<[string, string]> {
  const styles = slot
    ? (reference.getSlotRecipeFn(recipeKey) as unknown as (props: object) => Record<string, object>)({})[slot]
    : (reference.getRecipeFn(recipeKey) as unknown as (props: object) => object)({});
  const css = reference.css(styles ?? {}) as Record<string, unknown>;
  return Object.entries(css)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !entry[0].startsWith('--'))
    .map(([property, value]) => [kebab(property), value]);
}

/**
 * The declarations of every style rule that applies to `element` (jsdom's getComputedStyle skips
 * Chakra's `@layer` blocks, so the rules are matched here).
 */
function declaredStyles(element: Element): Map<string, string> {
  const declared = new Map<string, string>();
  const visit = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      if ('selectorText' in rule && 'style' in rule) {
        const { selectorText, style } = rule as CSSStyleRule;
        let matches = false;
        try {
          matches = element.matches(selectorText);
        } catch {
          // A selector jsdom cannot parse; Chakra's recipes' plain declarations are on plain class selectors.
        }
        if (matches) for (const property of Array.from(style)) declared.set(property, style.getPropertyValue(property).trim());
      } else if ('cssRules' in rule) {
        visit((rule as CSSGroupingRule).cssRules);
      }
    }
  };
  for (const sheet of Array.from(document.styleSheets)) visit(sheet.cssRules);
  return declared;
}

/** Why `element`, part `label` of the component with recipe `recipeKey`, looks unstyled; null when it does not. */
function unstyledReason(element: Element, label: string, recipeKey: string, slot: string | undefined): string | null {
  const recipe = (slot ? defaultConfig.theme!.slotRecipes : defaultConfig.theme!.recipes)![recipeKey] as { className: string };
  const className = slot ? `${recipe.className}__${slot}` : recipe.className;
  // Chakra gives every root (and every part but a few indicators) its recipe's class.
  if ((!slot || slot === 'root') && !element.classList.contains(className)) return `${label} lacks the class ${className}`;
  const expected = recipeDeclarations(recipeKey, slot);
  if (expected.length === 0) return null;
  const declared = declaredStyles(element);
  if (expected.some(([property, value]) => declared.get(property) === value)) return null;
  return `${label} has none of its recipe's styles (${expected.map(([p, v]) => `${p}: ${v}`).join('; ')})`;
}

const imports = chakraImports();

describe('every Chakra component the app imports renders with its recipe', () => {
  it('finds the imports in src/ (the scan itself works)', () => {
    expect(imports.get('Toast')).toEqual(new Set(['Root', 'Indicator', 'Title', 'Description', 'CloseTrigger']));
    expect(imports.has('Button')).toBe(true);
  });

  it("lists as having no recipe only components that have none in Chakra's theme", () => {
    const withRecipe = [...WITHOUT_RECIPE].filter((name) => reference.isRecipe(lowerFirst(name)) || reference.isSlotRecipe(lowerFirst(name)));
    expect(withRecipe).toEqual([]);
  });

  it('has a sample here for each of them', () => {
    const missing = [...imports.keys()].filter((name) => !WITHOUT_RECIPE.has(name) && !SAMPLES[name]);
    expect(missing).toEqual([]);
  });

  it('notices a component rendered without its recipe (the check itself works)', async () => {
    render(
      <ChakraProvider value={createSystem(defaultBaseConfig)}>
        <Button data-testid="Button">Go</Button>
      </ChakraProvider>,
    );
    expect(unstyledReason(await screen.findByTestId('Button'), 'Button', 'button', undefined)).toMatch(/Button lacks the class|has none of its recipe's styles/);
  });

  it.each([...imports.keys()].filter((name) => SAMPLES[name]))('%s', async (name) => {
    const sample = SAMPLES[name]!;
    const recipeKey = lowerFirst(name);
    render(<AppProviders config={defaultRuntimeConfig}>{sample.render()}</AppProviders>);
    if (sample.show) act(sample.show);
    const parts = [...imports.get(name)!].filter((part) => !sample.withoutElement?.includes(part));
    const problems: string[] = [];
    for (const part of parts.length ? parts : [undefined]) {
      const label = part ? `${name}.${part}` : name;
      const element = await screen.findByTestId(label);
      const reason = unstyledReason(element, label, recipeKey, part && lowerFirst(part));
      if (reason) problems.push(reason);
    }
    expect(problems).toEqual([]);
  });
});

/** Chakra's colour palettes; the app's system keeps only those it uses (src/app/theme.ts). */
const CHAKRA_PALETTES = Object.keys(defaultConfig.theme?.tokens?.colors ?? {}).filter((name) => !['transparent', 'current', 'black', 'white'].includes(name));

it('has every colour palette src/ names (a palette left out renders without colours)', () => {
  const named = new Set<string>();
  for (const source of sources()) {
    // 'red', "orange.700", 'gray.focusRing': a palette named in a string, as colorPalette or colour.
    for (const [, palette = ''] of source.matchAll(/['"]([a-z]+)(?:\.[\w.]+)?['"]/g)) if (CHAKRA_PALETTES.includes(palette)) named.add(palette);
  }
  expect(named.size).toBeGreaterThan(0);
  // Its shades and its semantic tokens (src/app/theme.ts overrides some of the latter, not `fg`).
  const missing = [...named].filter((palette) => !system.tokens.getByName(`colors.${palette}.500`) || !system.tokens.getByName(`colors.${palette}.fg`));
  expect(missing).toEqual([]);
});
