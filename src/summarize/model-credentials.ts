/**
 * Whether pi has credentials for a summarizer model, and the words that tell
 * a user why the summarizer model failed and how to fix it.
 */

/** The part of pi's `ModelRegistry` the check reads. */
export interface CredentialLookup {
  hasConfiguredAuth(model: never): boolean;
}

/** True only when pi says so; a registry that cannot tell (older pi, a throw) never warns. */
export function lacksCredentials(registry: Partial<CredentialLookup> | undefined, model: unknown): boolean {
  if (!model || typeof registry?.hasConfiguredAuth !== "function") return false;
  try {
    return !registry.hasConfiguredAuth(model as never);
  } catch (err) {
    console.error("pi-condense: checking the model's credentials failed", err);
    return false;
  }
}

export function loginFix(provider: string): string {
  return `run /login ${provider} in pi, or set ${provider}'s API key environment variable (pi's docs/providers.md names it)`;
}

/**
 * A provider's error as one clause: pi-ai joins an SDK's message and its cause with ": " even when the message
 * ends in a period (`Connection error.: bad port`), and a notice adds its own final period.
 */
export function plainErrorText(message: string): string {
  return message.replace(/\.:(\s)/g, ":$1").replace(/[.\s]+$/, "");
}

/**
 * The line under the fallback notice's first line (in the same notice, so one fallback is one warning):
 * what failed, and what the user can do about it.
 */
export function fallbackCauseLine(cause: string | undefined, provider: string, missingCredentials: boolean): string {
  const fix = missingCredentials
    ? loginFix(provider)
    : "it is tried again every 10 minutes; /pruner model <provider>/<id> picks another model, /pruner model default uses the session model";
  return `Cause: ${cause ?? "unknown error"}. To fix: ${fix}.`;
}
