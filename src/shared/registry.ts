// A registry of things that come and go for as long as the process runs (the waits on the gateway's stop signal,
// the responses a drain must reach, the read cache's loads under way), holding nothing of one once it has left
// (the keyed one: nothing but its key, below). Not a Set or a Map: one with that churn replaces its table now and
// then, and V8 keeps the replaced table, entries and all, linked to the next one. Once any of those tables is in
// the old generation (a full collection moves every live young object there), the scavenger, which counts every
// pointer from the old generation as live whether its object is or not, keeps every later table and whatever was
// in it alive until the next full collection: every upstream answer of every read, in the gateway
// (bench/RESULTS.md 0p; test/shared/registry-retention.test.ts). A list whose nodes forget their neighbours and
// their item as they leave leaves nothing behind for it.

/** One thing's place in a registry. */
export interface Entry {
  /** Takes it out; a no-op once it is out (removed, or drained). */
  remove(): void;
}

interface List<T> {
  head: Node<T> | null;
  tail: Node<T> | null;
  size: number;
}

class Node<T> implements Entry {
  prev: Node<T> | null = null;
  next: Node<T> | null = null;

  constructor(
    public item: T | null,
    private readonly list: List<T>,
  ) {}

  remove(): void {
    unlink(this.list, this);
  }
}

/** Takes `node` out of `list` and clears its links and item; a node already out (no item) is left alone. */
function unlink<T>(list: List<T>, node: Node<T>): void {
  if (node.item === null) return;
  if (node.prev) node.prev.next = node.next;
  else list.head = node.next;
  if (node.next) node.next.prev = node.prev;
  else list.tail = node.prev;
  node.prev = node.next = null;
  node.item = null;
  list.size--;
}

export class Registry<T extends object> {
  readonly #list: List<T> = { head: null, tail: null, size: 0 };

  get size(): number {
    return this.#list.size;
  }

  add(item: T): Entry {
    const list = this.#list;
    const node = new Node(item, list);
    node.prev = list.tail;
    if (list.tail) list.tail.next = node;
    else list.head = node;
    list.tail = node;
    list.size++;
    return node;
  }

  /** Everything registered now, each taken out, in the order they came. */
  drain(): T[] {
    const list = this.#list;
    const items: T[] = [];
    while (list.head) {
      items.push(list.head.item!);
      unlink(list, list.head);
    }
    return items;
  }
}

/**
 * The same for things found by key while they last (a read's load under way, which later reads join): an object
 * without a prototype, which V8 keeps as a dictionary, whose table it replaces without linking the old one to
 * the new. What it keeps of an entry that left is its key: V8 keeps a property's name in its string table, in the
 * old generation, until a full collection (about 40 bytes a key).
 */
export class KeyedRegistry<V> {
  #entries = Object.create(null) as Record<string, V>;

  get(key: string): V | undefined {
    return this.#entries[key];
  }

  set(key: string, value: V): void {
    this.#entries[key] = value;
  }

  delete(key: string): void {
    delete this.#entries[key];
  }

  /** The keys now, a copy (integer-like keys first, then the others as they came). */
  keys(): string[] {
    return Object.keys(this.#entries);
  }

  clear(): void {
    this.#entries = Object.create(null) as Record<string, V>;
  }
}
