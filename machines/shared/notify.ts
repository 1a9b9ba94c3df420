/** What a chart's `notify` effect is given: the kind of toast, its title and its sentence. */
export interface NotifyParams {
  type: 'success' | 'error' | 'info';
  title: string;
  description?: string;
}
