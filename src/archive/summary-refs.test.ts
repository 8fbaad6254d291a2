import { describe, expect, test } from "bun:test";
import {
  buildShortToolCallRefs,
  formatSummaryToolCallRefs,
  makeSummaryDetails,
  normalizeSummaryToolCallRefs,
  substituteInlineRefs,
} from "./summary-refs.js";
import type { CapturedBatch } from "../capture/records.js";

const refs = [
  { shortId: "t1", toolCallId: "a" },
  { shortId: "t2", toolCallId: "b" },
];
const names = ["read", "bash"];
const sub = (text: string) => substituteInlineRefs(text, refs, names);

describe("substituteInlineRefs", () => {
  test("line-start bullet labels become inline refs (1)", () => {
    expect(sub("- [[1:read]] Read a.ts")).toBe("- `t1` Read a.ts");
    expect(sub("- [[2:bash]] ran ls")).toBe("- `t2` ran ls");
  });

  test("the short id is used verbatim without a second t (2)", () => {
    const out = sub("[[1:read]] x");
    expect(out).toBe("`t1` x");
    expect(out).not.toContain("tt1");
  });

  test("tool names compare trimmed and case-insensitively (3)", () => {
    expect(sub("- [[1:Read]] x")).toBe("- `t1` x");
    expect(sub("- [[1: read ]] x")).toBe("- `t1` x");
  });

  test("a label naming the wrong tool is stripped (4)", () => {
    expect(sub("- [[2:read]] x")).toBe("- x");
  });

  test("a label past the end of the batch is stripped (5)", () => {
    expect(sub("- [[9:read]] x")).toBe("- x");
  });

  test("plain bullets are untouched (6)", () => {
    expect(sub("- plain bullet")).toBe("- plain bullet");
  });

  test("the same label on two lines decorates both (7)", () => {
    expect(sub("- [[2:bash]] one\n- [[2:bash]] two")).toBe("- `t2` one\n- `t2` two");
  });

  test("single-bracket text is untouched (8)", () => {
    expect(sub("used argv[1] and items[0] here")).toBe("used argv[1] and items[0] here");
  });

  test("mid-line labels are removed by the leak guard (9)", () => {
    expect(sub("used argv[1] and [[1:read]] mid")).toBe("used argv[1] and mid");
  });

  test("fenced code with a line-start label is unchanged (10)", () => {
    const text = "```\n[[1:read]] literal\n```";
    expect(sub(text)).toBe(text);
  });

  test("wrapped labels are stripped (11)", () => {
    expect(sub("- **[[1:read]]** x")).toBe("- **** x");
  });

  test("numbered-list labels are stripped (12)", () => {
    expect(sub("1. [[1:read]] did x")).toBe("1. did x");
  });

  test("blockquote labels are stripped (13)", () => {
    expect(sub("> [[1:read]] did x")).toBe("> did x");
  });

  test("fenced mid-line labels are unchanged (14)", () => {
    const text = "intro\n```ts\nfoo [[1:read]] bar\n```\n- [[1:read]] after";
    expect(sub(text)).toBe("intro\n```ts\nfoo [[1:read]] bar\n```\n- `t1` after");
  });

  test("an unclosed fence exempts the rest of the text (D1)", () => {
    expect(sub("- [[1:read]] a\n```\n- [[2:bash]] b")).toBe("- `t1` a\n```\n- [[2:bash]] b");
  });

  test("decorated bodies keep their refs when joined for range fusion (15)", () => {
    const body = sub("- [[1:read]] did a thing");
    expect(`${body}\n\n${body}`).toContain("`t1`");
  });

  test("label zero is stripped (16)", () => {
    expect(sub("- [[0:read]] x")).toBe("- x");
  });

  test("empty input gives empty output (17)", () => {
    expect(sub("")).toBe("");
  });

  test("spaces after a label collapse to one (18)", () => {
    expect(sub("- [[1:read]]    x")).toBe("- `t1` x");
  });

  test("a label at end of line leaves exactly one trailing space (19)", () => {
    expect(sub("- [[1:read]]")).toBe("- `t1` ");
  });

  test("dotted tool names validate like any other (20, 21)", () => {
    const dotted = [{ shortId: "t1", toolCallId: "a" }];
    expect(substituteInlineRefs("- [[1:server.tool]] did x", dotted, ["server.tool"])).toBe("- `t1` did x");
    expect(substituteInlineRefs("- [[1:other.tool]] x", dotted, ["server.tool"])).toBe("- x");
  });

  test("non-numeric double brackets are untouched (D5)", () => {
    expect(sub("see [[Page]] and [[x:read]]")).toBe("see [[Page]] and [[x:read]]");
  });

  test("star bullets are decorated too", () => {
    expect(sub("  * [[2:bash]] ran")).toBe("  * `t2` ran");
  });
});

describe("formatSummaryToolCallRefs", () => {
  test("renders the exact footer", () => {
    expect(formatSummaryToolCallRefs(refs)).toBe(
      "\n\n---\n**Summarized tool refs**: `t1`, `t2`\nUse `context_tree_query` with these refs to retrieve the original full outputs.",
    );
  });

  test("decorated body and footer both carry every ref (22)", () => {
    const body = sub("- [[1:read]] a\n- [[2:bash]] b");
    const footer = formatSummaryToolCallRefs(refs);
    for (const text of [body, footer]) {
      expect(text).toContain("`t1`");
      expect(text).toContain("`t2`");
    }
  });
});

describe("buildShortToolCallRefs", () => {
  test("numbers refs from the start index and keeps timestamps (23)", () => {
    const built = buildShortToolCallRefs(
      [
        { toolCallId: "bash_23", resultTimestamp: 2150 },
        { toolCallId: "bash_23", resultTimestamp: 3150 },
      ],
      5,
    );
    expect(built.refs).toEqual([
      { shortId: "t5", toolCallId: "bash_23", resultTimestamp: 2150 },
      { shortId: "t6", toolCallId: "bash_23", resultTimestamp: 3150 },
    ]);
    expect(built.nextIndex).toBe(7);
  });

  test("omits resultTimestamp when the call has none (24)", () => {
    const [ref] = buildShortToolCallRefs([{ toolCallId: "bash_1" }], 1).refs;
    expect(ref).toEqual({ shortId: "t1", toolCallId: "bash_1" });
    expect(Object.hasOwn(ref!, "resultTimestamp")).toBe(false);
  });
});

describe("normalizeSummaryToolCallRefs", () => {
  test("keeps a numeric resultTimestamp (25)", () => {
    const details = { toolCallRefs: [{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }] };
    expect(normalizeSummaryToolCallRefs(details)).toEqual([{ shortId: "t1", toolCallId: "bash_23", resultTimestamp: 1150 }]);
  });

  test("drops a non-numeric resultTimestamp entirely (26)", () => {
    const [ref] = normalizeSummaryToolCallRefs({ toolCallRefs: [{ shortId: "t1", toolCallId: "x", resultTimestamp: "nope" }] });
    expect(Object.hasOwn(ref!, "resultTimestamp")).toBe(false);
  });

  test("legacy toolCallIds become self-refs (27)", () => {
    expect(normalizeSummaryToolCallRefs({ toolCallIds: ["bash_1"] })).toEqual([{ shortId: "bash_1", toolCallId: "bash_1" }]);
  });

  test("non-objects and malformed refs give nothing (R3)", () => {
    expect(normalizeSummaryToolCallRefs(null)).toEqual([]);
    expect(normalizeSummaryToolCallRefs("x")).toEqual([]);
    expect(normalizeSummaryToolCallRefs({ toolCallRefs: [null, { shortId: 1, toolCallId: "a" }, { shortId: "t1" }] })).toEqual([]);
  });

  test("an empty toolCallRefs array wins over a legacy list (R3)", () => {
    expect(normalizeSummaryToolCallRefs({ toolCallRefs: [], toolCallIds: ["a"] })).toEqual([]);
  });

  test("unknown extra fields on refs are not carried over", () => {
    expect(normalizeSummaryToolCallRefs({ toolCallRefs: [{ shortId: "t1", toolCallId: "a", extra: 1 }] })).toEqual([
      { shortId: "t1", toolCallId: "a" },
    ]);
  });
});

describe("makeSummaryDetails", () => {
  test("builds toolCallRefs, toolNames, turnIndex and timestamp (R4)", () => {
    const batch: CapturedBatch = {
      turnIndex: 4,
      timestamp: 900,
      assistantText: "",
      toolCalls: [
        { toolCallId: "a", toolName: "read", args: {}, resultText: "x", isError: false },
        { toolCallId: "b", toolName: "bash", args: {}, resultText: "y", isError: false },
      ],
    };
    expect(makeSummaryDetails(batch, refs)).toEqual({ toolCallRefs: refs, toolNames: ["read", "bash"], turnIndex: 4, timestamp: 900 });
  });
});
