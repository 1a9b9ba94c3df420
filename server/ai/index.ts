import type { AiConfig } from '../config';
import { checkedModel } from './checkedModel';
import { offlineProvider } from './offline';
import { openAiProvider } from './openai';
import type { AiProvider } from './provider';

/** The provider the configuration names (`AI_PROVIDER`). */
export function createAiProvider(config: AiConfig): AiProvider {
  return config.provider === 'openai' ? checkedModel(openAiProvider(config), config.model ?? 'model') : offlineProvider();
}
