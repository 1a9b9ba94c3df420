import type { AiConfig } from '../config';
import { offlineProvider } from './offline';
import { openAiProvider } from './openai';
import type { AiProvider } from './provider';

/** The provider the configuration names (`AI_PROVIDER`). */
export function createAiProvider(config: AiConfig): AiProvider {
  return config.provider === 'openai' ? openAiProvider(config) : offlineProvider();
}
