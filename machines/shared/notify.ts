import type { Message } from './messages';

/** What a chart's `notify` effect is given: the kind of toast, its title and its sentence, as messages the view words. */
export interface NotifyParams {
  type: 'success' | 'error' | 'info';
  title: Message;
  description?: Message;
}
