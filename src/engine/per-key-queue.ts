/**
 * Runs the work given under one key one after another (in this process: one per data folder). For
 * checks that must count the money movement before them, where the gateway call happens outside
 * any unit of work and so no unit can hold it: payments on one ecommerce sale, on one invoice's link.
 */
export function perKeyQueue() {
  const queues = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(work, work);
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, done);
    void done.then(() => {
      if (queues.get(key) === done) queues.delete(key);
    });
    return run;
  };
}
