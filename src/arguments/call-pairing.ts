/**
 * Which call a tool result answers, as the render's phases read it: the first unanswered call with its id in
 * the nearest assistant message before it. Providers reuse ids (across turns, and some within one message),
 * so a result is never matched by its id alone. Pure.
 */
export class CallPairing<C> {
  /** Per id, the assistant messages with calls of that id still unanswered, nearest last. */
  private readonly unanswered = new Map<string, C[][]>();

  /** The calls of one assistant message, in order, each with its id. */
  open(calls: ReadonlyArray<readonly [id: string, call: C]>): void {
    const byId = new Map<string, C[]>();
    for (const [id, call] of calls) {
      const group = byId.get(id);
      if (group === undefined) byId.set(id, [call]);
      else group.push(call);
    }
    for (const [id, group] of byId) {
      const groups = this.unanswered.get(id);
      if (groups) groups.push(group);
      else this.unanswered.set(id, [group]);
    }
  }

  /** The call a result with this id answers, if any (it is then answered). */
  answer(id: string): C | undefined {
    const groups = this.unanswered.get(id);
    const group = groups?.[groups.length - 1];
    const call = group?.shift();
    if (group?.length === 0) groups!.pop();
    return call;
  }
}
