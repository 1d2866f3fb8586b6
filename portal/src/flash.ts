/**
 * A notice carried across a change of view, shown once by the view that takes it: a page that
 * navigates away after a change (onboarding, deleting, adding someone) says what it did on the next.
 */
let flash: string | undefined;

export function setFlash(message: string): void {
  flash = message;
}

export function takeFlash(): string | undefined {
  const message = flash;
  flash = undefined;
  return message;
}
