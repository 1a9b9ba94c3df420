// jsdom without the Fetch API that react-router's data router needs: lend it Node's own classes.
// AbortController comes along so a Request accepts the signal it is given.
const { TestEnvironment } = require('jest-environment-jsdom');

class JsdomWithFetch extends TestEnvironment {
  constructor(...args) {
    super(...args);
    const { fetch, Request, Response, Headers, FormData, AbortController, AbortSignal, TextEncoder, TextDecoder } = globalThis;
    Object.assign(this.global, { fetch, Request, Response, Headers, FormData, AbortController, AbortSignal, TextEncoder, TextDecoder });
    this.global.structuredClone ??= structuredClone;
  }
}

module.exports = JsdomWithFetch;
