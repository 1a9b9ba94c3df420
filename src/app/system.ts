import { createSystem, defaultBaseConfig, mergeConfigs } from '@chakra-ui/react';
import { appTheme, theme } from './theme';

/**
 * The app's Chakra system: its tokens, recipes and CSS engine, made from the theme in ./theme.ts.
 * Apart from that module so that evaluating Chakra's code and building the system are two tasks
 * when the app starts (src/main.tsx), each short enough not to hold a slow phone's input.
 */
export const system = createSystem(mergeConfigs(defaultBaseConfig, theme), appTheme);
