/**
 * A first-in first-out queue with amortised O(1) removal from the front (an array's `shift()` moves every element
 * once the array is large), for the hub's ring of frames (hub.ts).
 */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  /** How many items it holds. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Add `item` at the back. */
  push(item: T): void {
    this.#items.push(item);
  }

  /** Remove and return the front item (undefined when empty). */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head]!;
    this.#head += 1;
    // Drop the removed slots once they are at least half of the array: each item is moved at most once per removal.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The item at position `i` from the front (undefined outside 0 … length − 1). */
  at(i: number): T | undefined {
    return i < 0 || i >= this.length ? undefined : this.#items[this.#head + i];
  }
}
