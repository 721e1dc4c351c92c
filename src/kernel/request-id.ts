// A client's own X-Request-Id is kept when it has this shape (DESIGN §4); otherwise the
// server makes one. Shared by the app, which reads the header, and the OpenAPI document,
// which declares it on every operation.
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/
