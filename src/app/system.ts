import { createSystem, defaultBaseConfig } from '@chakra-ui/react';
import { appTheme, theme } from './theme';

/**
 * The app's Chakra system: its tokens, recipes and CSS engine, made from the theme in ./theme.ts.
 * Apart from that module so that evaluating Chakra's code and building the system are two tasks
 * when the app starts (src/main.tsx), each short enough not to hold a slow phone's input. The
 * configs go to createSystem as they are: it merges them itself, and merging two first copied the
 * whole theme twice (the same tokens, recipes and CSS, in about a tenth less time).
 */
export const system = createSystem(defaultBaseConfig, theme, appTheme);
