import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ProblemError, type Problem } from "../api/client";

/** Any error as a problem the page can show. */
export function asProblem(error: unknown): Problem {
  return error instanceof ProblemError ? error.problem : { status: 0, code: "UNEXPECTED", detail: error instanceof Error ? error.message : String(error) };
}

export interface Resource<T> {
  value: T | undefined;
  problem: Problem | undefined;
  loading: boolean;
  reload(): Promise<void>;
  set(value: T): void;
}

/** Loads something on mount and when `deps` change; `reload` loads it again (after a change, on a timer). */
export function useResource<T>(load: () => Promise<T>, deps: unknown[] = []): Resource<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const next = await load();
      if (mine === generation.current) {
        setValue(next);
        setProblem(undefined);
      }
    } catch (error) {
      if (mine === generation.current) setProblem(asProblem(error));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, problem, loading, reload, set: setValue };
}

/** Calls `tick` every `ms` while the page is visible. */
export function useInterval(tick: () => void, ms: number): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    const id = setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/** An action a button runs: whether it is running, and the problem of its last run. */
export interface Action<A extends unknown[] = []> {
  run(...args: A): Promise<boolean>;
  busy: boolean;
  problem: Problem | undefined;
  clear(): void;
}

/** A button that shows it is busy while its action runs, and reports the action's problem. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  return {
    busy,
    problem,
    clear: () => setProblem(undefined),
    async run(...args: A) {
      setBusy(true);
      setProblem(undefined);
      try {
        await action(...args);
        return true;
      } catch (error) {
        setProblem(asProblem(error));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/**
 * An editor's end: the saved state is read again (when anything changed) before the editor closes,
 * so what shows under the notice is what was saved, never what was there before (closing first showed
 * the old state under "saved" until the read came back). The editor shows "Saving…" meanwhile.
 */
export async function readThenClose(changed: boolean, read: () => Promise<unknown>, close: () => void): Promise<void> {
  try {
    if (changed) await read();
  } finally {
    close();
  }
}
