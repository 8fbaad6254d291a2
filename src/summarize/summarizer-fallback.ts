/**
 * Sticky outage fallback for the summarizer. When the configured summarizer
 * model fails transiently, calls move to the session model and stay there; one
 * call per cooldown period probes the primary again. No I/O: transitions are
 * returned as tags and the summarizer turns them into notices.
 */

import type { FallbackTransition, SummarizerFallback, TargetDecision } from "../types.js";

export type { CallTarget, FallbackTransition, TargetDecision } from "../types.js";

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

/** What status and `/pruner model` say while the session model stands in; undefined when it does not. */
export function fallbackInUse(controller: Pick<FallbackController, "inFallback" | "cause">, sessionModel: ModelLike | undefined): string | undefined {
  if (!controller.inFallback) return undefined;
  const label = sessionModel ? sessionModel.name || `${sessionModel.provider}/${sessionModel.id}` : "the session model";
  return `session model ${label}, the summarizer model is failing${controller.cause ? ` (${controller.cause})` : ""}`;
}
