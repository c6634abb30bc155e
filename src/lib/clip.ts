// A client's text as a message shows it: cut short, so a value of megabytes never comes back whole in an answer or a log.

/** `text` itself when at most `max` characters long, else its first `max - 3` and `...`. */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
