/**
 * Sticky outage fallback for the summarizer. When the configured summarizer
 * model fails transiently, calls move to the session model and stay there; one
 * call per cooldown period probes the primary again. No I/O: transitions are
 * returned as tags and the summarizer turns them into notices.
 */

import { lacksCredentials, loginFix } from "./model-credentials.js";

export type FallbackTransition = "enter" | "recover" | "none";

export type CallTarget = "primary" | "fallback";

export interface TargetDecision {
  target: CallTarget;
  wasProbe: boolean;
}

/** The outage-fallback state a summarizer call consults (implemented by `FallbackController`). */
export interface SummarizerFallback {
  chooseTarget(): TargetDecision;
  onPrimarySuccess(wasProbe: boolean): FallbackTransition;
  onFallbackSuccess(): FallbackTransition;
  onPrimaryFailFallbackOk(wasProbe: boolean): FallbackTransition;
  onFallbackOnlyFail(): void;
  onBothDown(): void;
  recordPrimaryFailure?(message: string): void;
  /** The primary's last error, when one was recorded. */
  readonly cause?: string;
}

export const COOLDOWN_MS = 10 * 60 * 1000;

export interface ModelLike {
  id: string;
  provider: string;
  name?: string;
}

export class FallbackController implements SummarizerFallback {
  inFallback = false;
  /** The primary's last error, so status can say why the session model is in use. */
  cause: string | undefined;
  private lastProbeAt = 0;
  private owedEnterWarning = false;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  reset(): void {
    this.inFallback = false;
    this.lastProbeAt = 0;
    this.owedEnterWarning = false;
    this.cause = undefined;
  }

  recordPrimaryFailure(message: string): void {
    this.cause = message;
  }

  static hasDistinctFallback(primary: ModelLike | undefined, sessionModel: ModelLike | undefined): boolean {
    if (!primary || !sessionModel) return false;
    return primary.provider !== sessionModel.provider || primary.id !== sessionModel.id;
  }

  chooseTarget(): TargetDecision {
    if (!this.inFallback) return { target: "primary", wasProbe: false };
    const now = this.now();
    if (now - this.lastProbeAt >= COOLDOWN_MS) {
      // Claimed synchronously so that sibling calls started in the same tick route to the fallback.
      this.lastProbeAt = now;
      return { target: "primary", wasProbe: true };
    }
    return { target: "fallback", wasProbe: false };
  }

  onPrimaryFailFallbackOk(_wasProbe: boolean): FallbackTransition {
    this.lastProbeAt = this.now();
    if (this.owedEnterWarning) {
      this.owedEnterWarning = false;
      this.inFallback = true;
      return "enter";
    }
    if (!this.inFallback) {
      this.inFallback = true;
      return "enter";
    }
    return "none";
  }

  onBothDown(): void {
    this.lastProbeAt = this.now();
    if (!this.inFallback) {
      this.inFallback = true;
      this.owedEnterWarning = true;
    }
  }

  onFallbackOnlyFail(): void {
    // Deliberately leaves lastProbeAt alone: a flaky fallback must not starve the re-probe.
  }

  onPrimarySuccess(wasProbe: boolean): FallbackTransition {
    if (wasProbe && this.inFallback) {
      this.inFallback = false;
      this.owedEnterWarning = false;
      return "recover";
    }
    return "none";
  }

  onFallbackSuccess(): FallbackTransition {
    if (this.owedEnterWarning) {
      this.owedEnterWarning = false;
      return "enter";
    }
    return "none";
  }
}

function sessionModelLabel(sessionModel: ModelLike | undefined): string {
  return sessionModel ? sessionModel.name || `${sessionModel.provider}/${sessionModel.id}` : "the session model";
}

/** What status and `/pruner model` say while the session model stands in; undefined when it does not. */
export function fallbackInUse(controller: Pick<FallbackController, "inFallback" | "cause">, sessionModel: ModelLike | undefined): string | undefined {
  if (!controller.inFallback) return undefined;
  return `session model ${sessionModelLabel(sessionModel)}, the summarizer model is failing${controller.cause ? ` (${controller.cause})` : ""}`;
}

/** The part of the extension context the in-use line reads. */
export interface InUseContext {
  model: ModelLike | undefined;
  modelRegistry?: { find?(provider: string, id: string): unknown; hasConfiguredAuth?(model: never): boolean };
}

/**
 * The model summaries go to when it is not the configured one: the session model while the fallback stands
 * in, or already before any call when pi has no credentials for the configured model (its first call fails
 * and the session model rescues it). Undefined when the configured model is in use.
 */
export function summarizerInUse(controller: Pick<FallbackController, "inFallback" | "cause">, ctx: InUseContext, summarizerModel: string): string | undefined {
  const fallback = fallbackInUse(controller, ctx.model);
  if (fallback || summarizerModel === "default") return fallback;
  const slash = summarizerModel.indexOf("/");
  if (slash <= 0) return undefined;
  const provider = summarizerModel.slice(0, slash);
  let found: unknown;
  try {
    found = ctx.modelRegistry?.find?.(provider, summarizerModel.slice(slash + 1));
  } catch {
    return undefined;
  }
  if (!found || !lacksCredentials(ctx.modelRegistry, found)) return undefined;
  return `session model ${sessionModelLabel(ctx.model)}, pi has no credentials for ${provider} (${loginFix(provider)})`;
}
