import { applyColorMode, preferredColorMode } from './lib/colorMode';

// Run at the top of <head>, before the first paint, which so has the right mode: the build inlines
// it there, and the server gives it the response's script nonce (the CSP allows no other inline
// script).
applyColorMode(preferredColorMode());
