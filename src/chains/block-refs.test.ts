import { describe, expect, test } from "bun:test";
import { BlockRefIssuer } from "./block-refs.js";

describe("BlockRefIssuer", () => {
  test("a new issuer starts at b1", () => {
    // B1
    expect(new BlockRefIssuer().issue()).toBe("b1");
  });

  test("issues consecutive ids", () => {
    // B2
    const issuer = new BlockRefIssuer();
    expect([issuer.issue(), issuer.issue(), issuer.issue()]).toEqual(["b1", "b2", "b3"]);
  });

  test("rebuilding from no ids resets to b1", () => {
    // B3
    const issuer = new BlockRefIssuer();
    issuer.issue();
    issuer.issue();
    issuer.rebuildFrom([]);
    expect(issuer.issue()).toBe("b1");
  });

  test("rebuilding continues after the highest id", () => {
    // B4
    const issuer = new BlockRefIssuer();
    issuer.rebuildFrom(["b1", "b2"]);
    expect(issuer.issue()).toBe("b3");
  });

  test("rebuilding does not fill gaps", () => {
    // B5
    const issuer = new BlockRefIssuer();
    issuer.rebuildFrom(["b1", "b3"]);
    expect(issuer.issue()).toBe("b4");
  });

  test("rebuilding overrides earlier issues", () => {
    // B6
    const issuer = new BlockRefIssuer();
    issuer.issue();
    issuer.issue();
    issuer.rebuildFrom(["b5"]);
    expect(issuer.issue()).toBe("b6");
  });

  test("rebuilding uses the numeric maximum regardless of order", () => {
    const issuer = new BlockRefIssuer();
    issuer.rebuildFrom(["b10", "b9", "b2"]);
    expect(issuer.issue()).toBe("b11");
  });

  test("ids not matching b<digits> are ignored by rebuildFrom", () => {
    const issuer = new BlockRefIssuer();
    issuer.rebuildFrom(["b2", "bx", "block7", "b", "B9", "b3a", " b8", "", undefined as any, null as any, 42 as any]);
    expect(issuer.issue()).toBe("b3");
  });

  test("only malformed ids rebuild to b1, never bNaN", () => {
    const issuer = new BlockRefIssuer();
    issuer.issue();
    issuer.rebuildFrom(["garbage", "b-1"]);
    expect(issuer.issue()).toBe("b1");
  });
});
