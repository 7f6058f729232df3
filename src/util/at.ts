/**
 * Element `i` of an array whose length the caller has already checked (typed arrays in hot loops,
 * indices produced by the same code): reads it without a non-null assertion, and fails loudly
 * instead of passing `undefined` on if the invariant is ever broken.
 * @throws RangeError when there is no element `i` (a bug in the caller, never bad input)
 * Complexity: O(1).
 */
export function at<T>(items: ArrayLike<T>, i: number): T {
  const item = items[i];
  if (item === undefined) throw new RangeError(`index ${i} out of range (length ${items.length})`);
  return item;
}
