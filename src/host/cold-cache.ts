/**
 * Moments the provider's prompt cache is cold anyway, so a render may rewrite
 * deep in the transcript for free: supersession then stubs every earlier read
 * of a protected path that was read again (render phase 1b, supersede.ts).
 */
import type { SupersedeState } from "../render/supersede.js";

/** Model switch, compaction, thinking-level change: the next render activates all candidates; earlier stubs stay. */
export function onCacheCold(state: { supersede: SupersedeState }): void {
  state.supersede.floor = 0;
}

/** Session start or branch switch: the stubs of another transcript mean nothing here, so activation starts over. */
export function onSessionReset(state: { supersede: SupersedeState }): void {
  state.supersede.activated.clear();
  state.supersede.floor = 0;
}
