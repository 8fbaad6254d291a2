/** Issues monotonic chain block ids `b1`, `b2`, ... (never reused, no gap filling). */

const BLOCK_ID = /^b(\d+)$/;

export class BlockRefIssuer {
  private next = 1;

  issue(): string {
    return `b${this.next++}`;
  }

  /** Ids that are not `b<digits>` are ignored rather than poisoning the counter. */
  rebuildFrom(existingBlockIds: string[]): void {
    let max = 0;
    for (const id of existingBlockIds) {
      const match = typeof id === "string" ? BLOCK_ID.exec(id) : null;
      if (match) max = Math.max(max, Number(match[1]));
    }
    this.next = max + 1;
  }
}
