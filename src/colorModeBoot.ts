import { applyColorMode, preferredColorMode } from './lib/colorMode';

// Loaded as a blocking script at the top of <head> (not inline: the CSP allows no inline script),
// so the first paint already has the right mode.
applyColorMode(preferredColorMode());
