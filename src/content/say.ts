import type { CodeWords, Message, MessageKey, Sentences } from '../../machines/shared/messages';
import type * as catalogue from './messages';
import { api, auth } from './messages';

/** The sections the failure rules every flow shares word in (machines/shared/failures.ts). */
export const FAILURE_TEXTS = { api, auth };

/**
 * The catalogue's sections a view resolves the charts' messages in. Each view hands the sections
 * its charts speak rather than the whole catalogue, so that a page's chunk carries its own texts
 * only (src/content/messages.ts); the toasts, loaded after the page, resolve in all of them
 * (src/content/chartTexts.ts).
 */
export type Sections = { readonly [section: string]: object };

const lookup = (key: string, sections: Sections): unknown =>
  key.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], sections);

/** A chart's message in the catalogue's words (machines/shared/messages.ts). */
export function say(message: Message, sections: Sections): string {
  if (typeof message === 'string') return lookup(message, sections) as string;
  if ('text' in message) return message.text;
  if ('join' in message) return message.join.map((part) => say(part, sections)).join(' ');
  if ('words' in message) return (lookup(message.words, sections) as Record<string, string>)[message.code] || say(message.otherwise, sections);
  return (lookup(message.key, sections) as (...values: unknown[]) => string)(...message.values);
}

// Every name a chart uses is in the catalogue, as a text, a sentence taking the chart's values, or
// a record of words by error code: a missing or changed one fails the type check, naming it.
type At<T, P extends string> = P extends `${infer H}.${infer R}` ? (H extends keyof T ? At<T[H], R> : never) : P extends keyof T ? T[P] : never;
type Catalogue = typeof catalogue;
type Wrong =
  | { [K in MessageKey]: At<Catalogue, K> extends string ? never : K }[MessageKey]
  | { [K in keyof Sentences]: At<Catalogue, K> extends (...values: Sentences[K]) => string ? never : K }[keyof Sentences]
  | { [K in CodeWords]: At<Catalogue, K> extends Record<string, string> ? never : K }[CodeWords];
type NoneOf<T extends never> = T;
export type CatalogueHasEveryChartMessage = NoneOf<Wrong>;
