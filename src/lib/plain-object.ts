/** An object literal's kind of object (made by `{}` or JSON.parse): not an array, a Date or any other class. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}
