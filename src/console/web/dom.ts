// Builds elements from data. Text always goes in as text nodes, never as HTML, so nothing from the API can inject markup.

export type Child = Node | string | number | null | undefined | false | Child[];
export type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** `h('button', {type: 'button', onclick: fn}, 'Save')`. `class` sets the class; `true` sets a boolean attribute; null/false/undefined skip it. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'value' && 'value' in element) (element as HTMLInputElement).value = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children (nested arrays flattened, empty ones skipped). */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild !== null) parent.removeChild(parent.firstChild);
  append(parent, children);
}

let counter = 0;
/** A fresh id for label/aria wiring. */
export function uid(prefix: string): string {
  return `${prefix}-${++counter}`;
}
