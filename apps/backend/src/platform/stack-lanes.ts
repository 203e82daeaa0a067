import { type Cluster, singleBackend } from "../db/cluster.ts";

/**
 * Komodo work on one stack (its deploys, its deletion) runs one piece after the other, across all
 * backends on the database; work on different stacks runs side by side. The deploy service and the
 * stack service share one.
 */
export function createStackLanes({ cluster = singleBackend }: { cluster?: Cluster } = {}) {
  const lanes = new Map<string, Promise<unknown>>();
  return {
    /** Runs `work` once everything queued before it for `stack` has ended, however it ended. */
    run<T>(stack: string, work: () => Promise<T>): Promise<T> {
      const previous = lanes.get(stack) ?? Promise.resolve();
      const exclusively = () => cluster.exclusive(`stack:${stack}`, work);
      const current = previous.then(exclusively, exclusively);
      lanes.set(stack, current);
      const release = () => {
        if (lanes.get(stack) === current) lanes.delete(stack);
      };
      current.then(release, release);
      return current;
    },
  };
}

export type StackLanes = ReturnType<typeof createStackLanes>;
