/**
 * The bound on every rewrite the cost policy waits with: a ski-rental account per kind of deferred work.
 *
 * When the policy defers a rewrite the classic policy would make (the outputs waiting at a final reply,
 * the closed chains past the window), waiting is renting: every main
 * request that follows reads the deferred work raw, which costs what the rewrite would save on it (cache
 * read × the tokens it would remove, less its summaries) more than the rewrite would have. Buying is the
 * rewrite, whose cost was `owed` when it was first deferred. The account also counts what waiting has
 * made the rewrite dearer: a later rewrite writes again what was added meanwhile.
 *
 *   regret = paid + max(0, cost now − owed)        rewrite once regret ≥ owed
 *
 * So a deferral costs at most `owed` plus one step (one request's rent, or one weighing's growth) more than
 * rewriting when it was deferred; one that ends without a rewrite (the session ends, or the cache expires
 * and the rewrite becomes free) cost less than `owed` in reads and saved the rewrite itself. Each account
 * keeps what each deferred item saves per request, and charges only for items still waiting: work a later
 * flush took (a cold cache, `/pruner now`, context pressure) stops costing rent, and an account whose
 * items are all gone closes. PRUNING.md "The bound on waiting" states what this guarantees against the
 * classic policy. Pure.
 */

/** reply: outputs a final reply left waiting; chains: closed chains past the window, compressed at a final reply by the classic policy. */
export type DeferralKind = "reply" | "chains";

export interface DeferralAccount {
  /** What the rewrite would have cost when it was first deferred. */
  owed: number;
  /** Extra reads paid since then. */
  paid: number;
  /** `paid` plus what waiting has added to the rewrite's cost, as of the last weighing; never falls. */
  regret: number;
  /** The largest single rise of `regret`: one request's rent, or the growth between two weighings. */
  step: number;
  /** Main requests charged. */
  requests: number;
  /** Each deferred item (an output's occurrence key, a chain's start) and what it saves per request, in dollars. */
  items: Map<string, number>;
}

/** A closed account: the deferral's cost beyond rewriting at once is at most `owed + step`. */
export interface SettledDeferral {
  kind: DeferralKind;
  owed: number;
  paid: number;
  regret: number;
  step: number;
  requests: number;
  /** The account closed because its regret reached what it owed: the bound made the rewrite. */
  bound: boolean;
}

function money(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

export class DeferralLedger {
  private readonly accounts = new Map<DeferralKind, DeferralAccount>();
  private readonly closed: SettledDeferral[] = [];

  reset(): void {
    this.accounts.clear();
    this.closed.length = 0;
  }

  account(kind: DeferralKind): Readonly<DeferralAccount> | undefined {
    return this.accounts.get(kind);
  }

  /** Every account closed so far, in order: the deferrals the bound is summed over. */
  settled(): readonly SettledDeferral[] {
    return this.closed;
  }

  /** A weighing chose to wait: the account opens with what the rewrite costs now, and takes on the items that wait. */
  defer(kind: DeferralKind, rewriteCost: number, items: ReadonlyMap<string, number>): void {
    const open = this.accounts.get(kind);
    if (!open) {
      this.accounts.set(kind, { owed: money(rewriteCost), paid: 0, regret: 0, step: 0, requests: 0, items: new Map(clean(items)) });
      return;
    }
    for (const [key, saving] of clean(items)) open.items.set(key, saving);
    raise(open, open.paid + Math.max(0, money(rewriteCost) - open.owed));
  }

  /**
   * One main request was sent: each account pays the saving of its items still waiting (`waiting(kind, key)`);
   * an account with none left closes.
   */
  charge(waiting: (kind: DeferralKind, key: string) => boolean): void {
    for (const [kind, account] of [...this.accounts]) {
      let rent = 0;
      for (const [key, saving] of [...account.items]) {
        if (waiting(kind, key)) rent += saving;
        else account.items.delete(key);
      }
      if (account.items.size === 0) {
        this.settle(kind);
        continue;
      }
      account.paid += rent;
      account.requests += 1;
      raise(account, account.regret + rent);
    }
  }

  /** Whether waiting has cost what the rewrite owed, with the rewrite costing `rewriteCost` now. */
  due(kind: DeferralKind, rewriteCost: number): boolean {
    const open = this.accounts.get(kind);
    if (!open) return false;
    raise(open, open.paid + Math.max(0, money(rewriteCost) - open.owed));
    return open.regret >= open.owed;
  }

  /** The rewrite was made: the account closes. */
  settle(kind: DeferralKind, bound = false): SettledDeferral | undefined {
    const open = this.accounts.get(kind);
    if (!open) return undefined;
    this.accounts.delete(kind);
    const { owed, paid, regret, step, requests } = open;
    const done: SettledDeferral = { kind, owed, paid, regret, step, requests, bound };
    this.closed.push(done);
    return done;
  }
}

function* clean(items: ReadonlyMap<string, number>): Iterable<[string, number]> {
  for (const [key, saving] of items) yield [key, money(saving)];
}

function raise(account: DeferralAccount, regret: number): void {
  if (regret > account.regret) account.step = Math.max(account.step, regret - account.regret);
  account.regret = Math.max(account.regret, regret);
}

/** The worst case against rewriting at once, summed over deferrals: what each owed plus its largest step. */
export function deferralBound(deferrals: Iterable<Pick<SettledDeferral, "owed" | "step">>): number {
  let total = 0;
  for (const d of deferrals) total += d.owed + d.step;
  return total;
}
