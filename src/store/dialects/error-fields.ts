// Reading a driver error without trusting its shape (both engines' classifiers use these).
export const errorCode = (err: unknown) => (err as { code?: unknown } | null)?.code
export const errorMessage = (err: unknown) => String((err as { message?: unknown } | null)?.message ?? '')

/** Both engines: Kysely after destroy(). */
export const DESTROYED = /driver has already been destroyed/i
