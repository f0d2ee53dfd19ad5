/** The error `f` throws; a test failure when it throws nothing. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
