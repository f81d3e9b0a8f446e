/** What `fn` throws, for a test to look at the error itself; fails the test when `fn` throws nothing. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
