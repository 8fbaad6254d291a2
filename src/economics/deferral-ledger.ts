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
 * So a deferral costs at most `owed` plus one step (what the regret rose between two weighings) more than
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
  /** The largest rise of `regret` between two weighings (the requests' rent and the rewrite's growth in between): how far past `owed` it can get before a weighing sees it. */
  step: number;
  /** `regret` when last weighed. */
  weighed: number;
  /** The rise of `regret` over the last interval between weighings: what the next one will likely add. */
  lastRise: number;
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
      this.accounts.set(kind, { owed: money(rewriteCost), paid: 0, regret: 0, step: 0, weighed: 0, lastRise: 0, requests: 0, items: new Map(clean(items)) });
      return;
    }
    for (const [key, saving] of clean(items)) open.items.set(key, saving);
    weigh(open, money(rewriteCost));
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
      account.regret += rent;
    }
  }

  /**
   * Whether the rent alone has paid what the rewrite owed (a moment within a run, where rewriting the deferred
   * work would also rewrite the run's raw outputs: its growth is weighed at the reply). Does not weigh.
   */
  dueOnRent(kind: DeferralKind): boolean {
    const open = this.accounts.get(kind);
    return open !== undefined && open.paid >= open.owed;
  }

  /**
   * Whether waiting has cost what the rewrite owed, with the rewrite costing `rewriteCost` now, or will have by
   * the next weighing if the regret rises as much as it did since the last one: the rewrite is then made now,
   * before it grows dearer still.
   */
  due(kind: DeferralKind, rewriteCost: number): boolean {
    const open = this.accounts.get(kind);
    if (!open) return false;
    weigh(open, money(rewriteCost));
    return open.regret + open.lastRise >= open.owed;
  }

  /** The rewrite was made: the account closes. */
  settle(kind: DeferralKind, bound = false): SettledDeferral | undefined {
    const open = this.accounts.get(kind);
    if (!open) return undefined;
    this.accounts.delete(kind);
    const done = snapshot(kind, open, bound);
    this.closed.push(done);
    return done;
  }

  /** Every account, closed or still open, as it would settle now: what the bound sums over. */
  all(): SettledDeferral[] {
    return [...this.closed, ...[...this.accounts].map(([kind, open]) => snapshot(kind, open, false))];
  }
}

/** The account as it closes: its step counts the rise since it was last weighed too. */
function snapshot(kind: DeferralKind, open: DeferralAccount, bound: boolean): SettledDeferral {
  const { owed, paid, regret, requests } = open;
  return { kind, owed, paid, regret, requests, bound, step: Math.max(open.step, regret - open.weighed) };
}

function* clean(items: ReadonlyMap<string, number>): Iterable<[string, number]> {
  for (const [key, saving] of items) yield [key, money(saving)];
}

/** A weighing: the regret counts what waiting has made the rewrite dearer (never less than before), and the rise since the last weighing is a step. */
function weigh(account: DeferralAccount, rewriteCost: number): void {
  account.regret = Math.max(account.regret, account.paid + Math.max(0, rewriteCost - account.owed));
  const rise = account.regret - account.weighed;
  // Weighed again with nothing new (two weighings at one moment): the pace stays what the last interval showed.
  if (rise > 0) account.lastRise = rise;
  account.step = Math.max(account.step, rise);
  account.weighed = account.regret;
}

/** The worst case against rewriting at once, summed over deferrals: what each owed plus its largest step. */
export function deferralBound(deferrals: Iterable<Pick<SettledDeferral, "owed" | "step">>): number {
  let total = 0;
  for (const d of deferrals) total += d.owed + d.step;
  return total;
}
