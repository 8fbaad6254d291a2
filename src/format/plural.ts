/** `1 tool call`, `3 tool calls`; pass the plural form when adding `s` is wrong (`batch` -> `batches`). */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
