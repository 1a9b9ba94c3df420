import { defineConfig, defineRecipe, defineSlotRecipe } from '@chakra-ui/react';
import {
  alertSlotRecipe,
  animationStyles,
  badgeRecipe,
  breakpoints,
  buttonRecipe,
  cardSlotRecipe,
  checkboxSlotRecipe,
  codeRecipe,
  containerRecipe,
  cssVarsPrefix,
  cssVarsRoot,
  dataListSlotRecipe,
  dialogSlotRecipe,
  fieldSlotRecipe,
  fieldsetSlotRecipe,
  globalCss,
  headingRecipe,
  iconRecipe,
  inputRecipe,
  keyframes,
  layerStyles,
  linkRecipe,
  listSlotRecipe,
  nativeSelectSlotRecipe,
  progressSlotRecipe,
  semanticTokens,
  skeletonRecipe,
  spinnerRecipe,
  statSlotRecipe,
  tableSlotRecipe,
  textareaRecipe,
  textStyles,
  toastSlotRecipe,
  tokens,
} from '@chakra-ui/react/theme';

/** The palettes the app's components and texts use (with `brand`, below); the others are left out. */
const PALETTES = ['gray', 'red', 'orange', 'green', 'blue', 'purple'];
const COLOR_SCALES = ['transparent', 'current', 'black', 'white', ...PALETTES];
/** The animations of the recipes below (spinner, skeleton, progress, the dialog's backdrop) and of toasts: the dialog's content takes no motion preset (a keyframe is CSS on every page). */
const KEYFRAMES = ['spin', 'pulse', 'bg-position', 'position', 'fade-in', 'fade-out'];

const only = <T extends Record<string, unknown>>(record: T, keys: string[]) =>
  Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key))) as T;

/**
 * Chakra's theme with only the recipes of the components this app renders: `defaultConfig` carries
 * every recipe of the library, 19.9 KiB of /login's JS (build/libraryPatches.ts, the first patch,
 * is what lets the others go). A component whose recipe is missing would render unstyled, so a new
 * Chakra component needs its recipe added here: tests/ui/chakraStyles.test.tsx fails until it is.
 * Every token becomes a CSS variable on every page, and every keyframe a rule, used or not: the
 * palettes and keyframes no component uses are left out too, about a fifth of a page's CSS. A
 * palette outside PALETTES would render without colours: the same test fails on one src/ names.
 */
export const theme = defineConfig({
  preflight: true,
  cssVarsPrefix,
  cssVarsRoot,
  globalCss,
  theme: {
    breakpoints,
    keyframes: only(keyframes, KEYFRAMES),
    tokens: { ...tokens, colors: only(tokens.colors, COLOR_SCALES) },
    semanticTokens: { ...semanticTokens, colors: only(semanticTokens.colors, ['bg', 'fg', 'border', ...PALETTES]) },
    textStyles,
    layerStyles,
    animationStyles,
    recipes: {
      badge: badgeRecipe,
      button: buttonRecipe,
      code: codeRecipe,
      container: containerRecipe,
      heading: headingRecipe,
      icon: iconRecipe,
      input: inputRecipe,
      link: linkRecipe,
      skeleton: skeletonRecipe,
      spinner: spinnerRecipe,
      textarea: textareaRecipe,
    },
    slotRecipes: {
      alert: alertSlotRecipe,
      card: cardSlotRecipe,
      checkbox: checkboxSlotRecipe,
      dataList: dataListSlotRecipe,
      // Its backdrop's shade (blackAlpha.500) as a value, not a token: every token is a variable on
      // every page, and the blackAlpha scale pushed /terms past a new connection's first flight
      // (tests/e2e/delivery.test.ts).
      dialog: { ...dialogSlotRecipe, base: { ...dialogSlotRecipe.base, backdrop: { ...dialogSlotRecipe.base?.backdrop, bg: 'rgba(0, 0, 0, 0.36)' } } },
      field: fieldSlotRecipe,
      fieldset: fieldsetSlotRecipe,
      list: listSlotRecipe,
      nativeSelect: nativeSelectSlotRecipe,
      progress: progressSlotRecipe,
      stat: statSlotRecipe,
      table: tableSlotRecipe,
      toast: toastSlotRecipe,
    },
  },
});

/**
 * The brand palette, a deep teal that passes WCAG AA on white (and its light tints on dark), and
 * the few changes to Chakra's defaults that keep every text at AA contrast (tests/e2e/accessibility).
 */
export const appTheme = defineConfig({
  theme: {
    recipes: {
      // Chakra lightens a solid button on hover (solid/90 over the page), which takes white text
      // on brand or red below 4.5:1; darkening keeps it above.
      button: defineRecipe({ variants: { variant: { solid: { _hover: { bg: 'colorPalette.solid', filter: 'brightness(0.9)' } } } } }),
    },
    slotRecipes: {
      // Chakra fades a toast's description to 80 %: too faint on the red and green toasts. The
      // override lists every slot: configs merge arrays index by index, so `['description']` alone
      // replaced the first slot, `root`, and every toast rendered as bare text (tests/ui/chakraStyles).
      toast: defineSlotRecipe({ slots: toastSlotRecipe.slots, base: { description: { opacity: 1 } } }),
    },
    tokens: {
      colors: {
        brand: {
          50: { value: '#effcf9' },
          100: { value: '#c9f2ea' },
          200: { value: '#95e3d5' },
          300: { value: '#5ccbbb' },
          400: { value: '#2fae9f' },
          500: { value: '#14907f' },
          600: { value: '#0f766e' },
          700: { value: '#115e58' },
          800: { value: '#134c48' },
          900: { value: '#143f3c' },
          950: { value: '#052523' },
        },
      },
    },
    semanticTokens: {
      colors: {
        // White on Chakra's green.600 and orange.600 (the success toast, the usage warning) is
        // about 3.3:1 and 3.6:1; one step darker passes.
        green: { solid: { value: '{colors.green.700}' } },
        // Text fields ring in their gray palette's focusRing: Chakra's gray.400 is 2.6:1 on white,
        // under the 3:1 a focus indicator needs (WCAG 1.4.11); gray.500 is 4.8:1.
        gray: { focusRing: { value: { _light: '{colors.gray.500}', _dark: '{colors.gray.400}' } } },
        orange: { solid: { value: { _light: '{colors.orange.700}', _dark: '{colors.orange.500}' } } },
        brand: {
          solid: { value: '{colors.brand.600}' },
          contrast: { value: 'white' },
          fg: { value: { _light: '{colors.brand.700}', _dark: '{colors.brand.300}' } },
          muted: { value: { _light: '{colors.brand.100}', _dark: '{colors.brand.900}' } },
          subtle: { value: { _light: '{colors.brand.50}', _dark: '{colors.brand.950}' } },
          emphasized: { value: { _light: '{colors.brand.200}', _dark: '{colors.brand.800}' } },
          focusRing: { value: '{colors.brand.500}' },
        },
      },
    },
  },
  globalCss: {
    html: { scrollBehavior: 'smooth' },
    '*, *::before, *::after': {
      '@media (prefers-reduced-motion: reduce)': {
        animationDuration: '0.01ms !important',
        transitionDuration: '0.01ms !important',
        scrollBehavior: 'auto !important',
      },
    },
  },
});
