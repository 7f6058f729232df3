/** The first element of a list that must not be empty (fails the test with a clear message otherwise). */
export function first<T>(list: readonly T[], what = 'list'): T {
  const [head] = list;
  if (head === undefined) throw new Error(`expected a non-empty ${what}`);
  return head;
}
