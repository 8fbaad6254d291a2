import { describe, expect, test } from "bun:test";
import { DeferralLedger, deferralBound } from "./deferral-ledger.js";

const items = (...pairs: Array<[string, number]>) => new Map(pairs);
const allWaiting = () => true;

describe("DeferralLedger", () => {
  test("a deferral opens an account owing what the rewrite cost then", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.05, items(["a", 0.01]));
    expect(ledger.account("reply")).toMatchObject({ owed: 0.05, paid: 0, regret: 0, requests: 0 });
  });

  test("each request pays the saving of every item still waiting", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.05, items(["a", 0.01], ["b", 0.002]));
    ledger.charge(allWaiting);
    ledger.charge(allWaiting);
    expect(ledger.account("reply")!.paid).toBeCloseTo(0.024, 10);
    expect(ledger.account("reply")!.requests).toBe(2);
  });

  test("an item a later flush archived stops costing rent", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.05, items(["a", 0.01], ["b", 0.002]));
    ledger.charge((_, key) => key !== "a");
    expect(ledger.account("reply")!.paid).toBeCloseTo(0.002, 10);
  });

  test("an account whose items are all gone closes without a rewrite of its own", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.05, items(["a", 0.01]));
    ledger.charge(() => false);
    expect(ledger.account("reply")).toBeUndefined();
    expect(ledger.settled()).toEqual([expect.objectContaining({ kind: "reply", bound: false, paid: 0 })]);
  });

  test("it is due once the regret reaches what the rewrite owed", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.01]));
    expect(ledger.due("reply", 0.03)).toBe(false);
    for (let i = 0; i < 3; i++) ledger.charge(allWaiting);
    expect(ledger.due("reply", 0.03)).toBe(true);
  });

  test("it is due a weighing early when the regret's last rise would carry it past what the rewrite owed", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.01]));
    ledger.charge(allWaiting);
    expect(ledger.due("reply", 0.03)).toBe(false);
    ledger.charge(allWaiting);
    expect(ledger.due("reply", 0.03)).toBe(true);
    expect(ledger.account("reply")!.regret).toBeCloseTo(0.02, 10);
  });

  test("a rewrite grown dearer while waiting counts toward the regret", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.001]));
    ledger.charge(allWaiting);
    expect(ledger.due("reply", 0.04)).toBe(false);
    expect(ledger.due("reply", 0.062)).toBe(true);
    expect(ledger.account("reply")!.regret).toBeCloseTo(0.033, 10);
  });

  test("a rewrite grown cheaper does not lower the regret", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.001]));
    ledger.due("reply", 0.05);
    ledger.due("reply", 0.01);
    expect(ledger.account("reply")!.regret).toBeCloseTo(0.02, 10);
  });

  test("a later deferral keeps what the first owed and adds the new items", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.001]));
    ledger.defer("reply", 0.08, items(["b", 0.004]));
    expect(ledger.account("reply")!.owed).toBe(0.03);
    ledger.charge(allWaiting);
    expect(ledger.account("reply")!.paid).toBeCloseTo(0.005, 10);
  });

  test("the step is the largest rise of the regret between two weighings, rent and growth together", () => {
    const ledger = new DeferralLedger();
    ledger.defer("chains", 0.1, items(["c", 0.002]));
    ledger.charge(allWaiting);
    ledger.due("chains", 0.13);
    ledger.charge(allWaiting);
    ledger.due("chains", 0.13);
    expect(ledger.account("chains")!.step).toBeCloseTo(0.032, 10);
  });

  test("an account closing counts the rise since its last weighing as a step", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.1, items(["a", 0.01]));
    for (let i = 0; i < 5; i++) ledger.charge(allWaiting);
    expect(ledger.settle("reply")!.step).toBeCloseTo(0.05, 10);
  });

  test("all() lists the closed accounts and the open ones as they would close now", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.1, items(["a", 0.01]));
    ledger.settle("reply");
    ledger.defer("chains", 0.2, items(["c", 0.01]));
    ledger.charge(allWaiting);
    expect(ledger.all().map((d) => [d.kind, d.bound, d.paid])).toEqual([["reply", false, 0], ["chains", false, 0.01]]);
  });

  test("kinds keep separate accounts", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.01]));
    ledger.defer("chains", 0.5, items(["c", 0.001]));
    ledger.charge(allWaiting);
    expect(ledger.settle("reply", true)).toMatchObject({ kind: "reply", bound: true, paid: 0.01 });
    expect(ledger.account("chains")!.paid).toBeCloseTo(0.001, 10);
  });

  test("absurd figures count as nothing: no negative, infinite or NaN dollars", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", Number.NaN, items(["a", -5], ["b", Number.POSITIVE_INFINITY]));
    ledger.charge(allWaiting);
    expect(ledger.account("reply")).toMatchObject({ owed: 0, paid: 0 });
    expect(ledger.due("reply", -1)).toBe(true);
  });

  test("the bound sums what each deferral owed and its largest step", () => {
    expect(deferralBound([{ owed: 0.1, step: 0.01 }, { owed: 0.2, step: 0.02 }])).toBeCloseTo(0.33, 10);
  });

  test("a reset forgets every account", () => {
    const ledger = new DeferralLedger();
    ledger.defer("reply", 0.03, items(["a", 0.01]));
    ledger.settle("reply");
    ledger.defer("chains", 0.03, items(["c", 0.01]));
    ledger.reset();
    expect(ledger.account("chains")).toBeUndefined();
    expect(ledger.settled()).toEqual([]);
  });
});
