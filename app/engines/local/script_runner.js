'use strict';
// Pressroom's script runner: runs Puppeteer-style scripts, one at a time.
//
// Started by the engine with the Node runtime that the playwright wheel ships, with
// --disallow-code-generation-from-strings. It holds no browser connection: every page call is a
// request to the engine (newline-delimited JSON on stdin/stdout), which performs it on one of its warm
// pages with Playwright and answers. So the script gets Puppeteer's page API, on the engine's browser,
// and the engine stays in charge of what a script may reach.
//
// The script runs in a fresh vm context. Only strings and numbers cross between this file and that
// context: the `page` object, `console` and timers are built inside the context (SHIM below) around a
// bridge whose functions are never reachable from the script, so the script finds no `require`,
// `process` or other object of this realm to climb out through.
//
// Engine -> runner:  {"op":"run","source":...,"url":...,"viewport":{...}}
//                    {"op":"reply","call":N,"ok":true|false,"value":JSON,"url":...}
//                    {"op":"event","event":"console","type":...,"text":...}
// Runner -> engine:  {"type":"call","call":N,"method":...,"args":[...]}
//                    {"type":"console","level":...,"text":...}
//                    {"type":"done","ok":true,"result":JSON|undefined,"binary":base64|undefined}
//                    {"type":"done","ok":false,"error":{"kind":"syntax"|"thrown","name","message","line","column"}}

const vm = require('vm');
const readline = require('readline');

const SCRIPT_FILE = 'script.js';

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

let running = false;
function finish(message) {
  if (!running) return;
  running = false;
  // Nothing of the script may outlive it: its timers go, answers still on their way are dropped.
  for (const timer of timers.values()) clearTimeout(timer);
  timers.clear();
  replies.clear();
  eventSink = null;
  shim = null;
  send(message);
}

// -- the bridge: the only host functions the context ever gets, and only inside SHIM's closure --------

const replies = new Map();
const timers = new Map();
let nextCall = 1;
let nextTimer = 1;
let eventSink = null;

const bridge = Object.freeze({
  call(method, argsJson, onReply) {
    const call = nextCall++;
    replies.set(call, onReply);
    send({ type: 'call', call, method: String(method), args: JSON.parse(String(argsJson)) });
  },
  log(level, text) {
    send({ type: 'console', level: String(level), text: String(text) });
  },
  done(ok, payloadJson) {
    const payload = JSON.parse(String(payloadJson));
    finish(ok ? { type: 'done', ok: true, ...payload } : { type: 'done', ok: false, error: payload });
  },
  timer(ms, callback) {
    const id = nextTimer++;
    timers.set(id, setTimeout(() => { timers.delete(id); callback(); }, Math.max(0, Number(ms) || 0)));
    return id;
  },
  clearTimer(id) {
    clearTimeout(timers.get(id));
    timers.delete(id);
  },
  listen(sink) {
    eventSink = sink;
  },
});

// -- inside the context: page, element handles, keyboard, mouse, console, timers -------------------

const SHIM = String.raw`
(function install(bridge, state) {
  'use strict';

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function fromBase64(text) {
    const clean = text.replace(/[^A-Za-z0-9+/]/g, '');
    const bytes = new Uint8Array(Math.floor(clean.length * 3 / 4));
    let j = 0;
    for (let i = 0; i < clean.length; i += 4) {
      const n = (B64.indexOf(clean[i]) << 18) | (B64.indexOf(clean[i + 1]) << 12)
        | ((B64.indexOf(clean[i + 2]) & 63) << 6) | (B64.indexOf(clean[i + 3]) & 63);
      bytes[j++] = (n >> 16) & 255;
      if (i + 2 < clean.length) bytes[j++] = (n >> 8) & 255;
      if (i + 3 < clean.length) bytes[j++] = n & 255;
    }
    return bytes.subarray(0, j);
  }
  function toBase64(bytes) {
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63]
        + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
    }
    return out;
  }

  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.stack ? String(value.stack).split('\n')[0] : String(value);
    if (value instanceof Uint8Array) return '<' + value.length + ' bytes>';
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return String(value);
    try { return JSON.stringify(value); } catch (e) { return String(value); }
  }
  function format(args) { return args.map(show).join(' '); }

  const consoleObject = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    consoleObject[level] = (...args) => { bridge.log(level, format(args)); };
  }
  consoleObject.dir = (value) => { bridge.log('log', show(value)); };
  consoleObject.table = (value) => { bridge.log('log', show(value)); };

  function setTimeout(callback, ms, ...args) {
    if (typeof callback !== 'function') throw new TypeError('setTimeout needs a function');
    return bridge.timer(ms, () => { callback(...args); });
  }
  function clearTimeout(id) { bridge.clearTimer(id); }
  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

  // -- calls to the engine --

  let currentUrl = state.url;
  let currentViewport = state.viewport;
  let defaultTimeout = null;
  let defaultNavigationTimeout = null;

  function encode(value) {
    return JSON.stringify(value, function (key, item) {
      if (typeof item === 'function') return { __function: String(item) };
      if (item instanceof JSHandle) return { __handle: item._id };
      if (item instanceof Uint8Array) return { __binary: toBase64(item) };
      if (item === undefined) return { __undefined: true };
      return item;
    });
  }

  function revive(value) {
    if (Array.isArray(value)) return value.map(revive);
    if (value && typeof value === 'object') {
      if ('__handle' in value) return value.element ? new ElementHandle(value.__handle) : new JSHandle(value.__handle);
      if ('__binary' in value) return fromBase64(value.__binary);
      if ('__response' in value) return new HTTPResponse(value.__response);
      if ('__undefined' in value) return undefined;
      const out = {};
      for (const key of Object.keys(value)) out[key] = revive(value[key]);
      return out;
    }
    return value;
  }

  function call(method, args) {
    const site = new Error();
    return new Promise((resolve, reject) => {
      bridge.call(method, encode(args), function (ok, json, url) {
        if (typeof url === 'string') currentUrl = url;
        const value = JSON.parse(json);
        if (ok) { resolve(revive(value)); return; }
        const error = new Error(value.message);
        error.name = value.name || 'Error';
        const frames = String(site.stack).split('\n').slice(1).filter((line) => line.includes('${SCRIPT_FILE}'));
        error.stack = error.name + ': ' + value.message + (frames.length ? '\n' + frames.join('\n') : '');
        reject(error);
      });
    });
  }

  function withTimeout(options, navigation) {
    const given = options && typeof options === 'object' ? Object.assign({}, options) : {};
    if (given.timeout === undefined) {
      const fallback = navigation ? (defaultNavigationTimeout ?? defaultTimeout) : defaultTimeout;
      if (fallback !== null) given.timeout = fallback;
    }
    return given;
  }

  class HTTPResponse {
    constructor(data) { this._data = data; }
    status() { return this._data.status; }
    statusText() { return this._data.statusText; }
    ok() { return this._data.status === 0 || (this._data.status >= 200 && this._data.status <= 299); }
    url() { return this._data.url; }
    headers() { return Object.assign({}, this._data.headers); }
    fromCache() { return false; }
  }

  class JSHandle {
    constructor(id) { this._id = id; }
    jsonValue() { return call('handle.jsonValue', [this]); }
    evaluate(fn, ...args) { return call('handle.evaluate', [this, fn, args]); }
    evaluateHandle(fn, ...args) { return call('handle.evaluateHandle', [this, fn, args]); }
    getProperty(name) { return call('handle.getProperty', [this, name]); }
    asElement() { return null; }
    dispose() { return call('handle.dispose', [this]); }
    toString() { return 'JSHandle@' + this._id; }
  }

  class ElementHandle extends JSHandle {
    asElement() { return this; }
    $(selector) { return call('element.$', [this, selector]); }
    $$(selector) { return call('element.$$', [this, selector]); }
    $eval(selector, fn, ...args) { return call('element.$eval', [this, selector, fn, args]); }
    $$eval(selector, fn, ...args) { return call('element.$$eval', [this, selector, fn, args]); }
    click(options) { return call('element.click', [this, withTimeout(options)]); }
    tap(options) { return call('element.click', [this, withTimeout(options)]); }
    type(text, options) { return call('element.type', [this, text, withTimeout(options)]); }
    press(key, options) { return call('element.press', [this, key, withTimeout(options)]); }
    focus() { return call('element.focus', [this]); }
    hover(options) { return call('element.hover', [this, withTimeout(options)]); }
    select(...values) { return call('element.select', [this, values]); }
    boundingBox() { return call('element.boundingBox', [this]); }
    screenshot(options) { return call('element.screenshot', [this, withTimeout(options)]); }
    scrollIntoView() { return call('element.scrollIntoView', [this]); }
    isVisible() { return call('element.isVisible', [this]); }
    isHidden() { return call('element.isHidden', [this]); }
    uploadFile() { return call('unsupported', ['elementHandle.uploadFile']); }
    contentFrame() { return call('unsupported', ['elementHandle.contentFrame']); }
    toString() { return 'ElementHandle@' + this._id; }
  }

  const keyboard = Object.freeze({
    type: (text, options) => call('keyboard.type', [text, options || {}]),
    press: (key, options) => call('keyboard.press', [key, options || {}]),
    down: (key) => call('keyboard.down', [key]),
    up: (key) => call('keyboard.up', [key]),
    sendCharacter: (text) => call('keyboard.sendCharacter', [text]),
  });

  const mouse = Object.freeze({
    move: (x, y, options) => call('mouse.move', [x, y, options || {}]),
    click: (x, y, options) => call('mouse.click', [x, y, options || {}]),
    down: (options) => call('mouse.down', [options || {}]),
    up: (options) => call('mouse.up', [options || {}]),
    wheel: (options) => call('mouse.wheel', [options || {}]),
  });

  class ConsoleMessage {
    constructor(data) { this._data = data; }
    type() { return this._data.type; }
    text() { return this._data.text; }
    args() { return []; }
  }

  const listeners = new Map();
  bridge.listen(function (kind, json) {
    const handlers = listeners.get(kind);
    if (!handlers) return;
    const data = JSON.parse(json);
    for (const handler of [...handlers]) {
      try { handler(kind === 'console' ? new ConsoleMessage(data) : data); } catch (error) {
        bridge.log('error', 'a page.on("' + kind + '") handler threw: ' + show(error));
      }
    }
  });

  const pageMethods = {
    goto: (url, options) => call('goto', [url, withTimeout(options, true)]),
    reload: (options) => call('reload', [withTimeout(options, true)]),
    goBack: (options) => call('goBack', [withTimeout(options, true)]),
    goForward: (options) => call('goForward', [withTimeout(options, true)]),
    setContent: (html, options) => call('setContent', [html, withTimeout(options, true)]),
    content: () => call('content', []),
    title: () => call('title', []),
    url: () => currentUrl,
    viewport: () => (currentViewport ? Object.assign({}, currentViewport) : null),
    setViewport: async (viewport) => {
      await call('setViewport', [viewport]);
      currentViewport = Object.assign({}, viewport);
    },
    waitForSelector: (selector, options) => call('waitForSelector', [selector, withTimeout(options)]),
    waitForXPath: (xpath, options) => call('waitForSelector', ['xpath=' + xpath, withTimeout(options)]),
    waitForFunction: (fn, options, ...args) => call('waitForFunction', [fn, withTimeout(options), args]),
    waitForTimeout: (ms) => sleep(ms),
    waitForNavigation: (options) => call('waitForNavigation', [withTimeout(options, true)]),
    waitForNetworkIdle: (options) => call('waitForNetworkIdle', [withTimeout(options, true)]),
    click: (selector, options) => call('click', [selector, withTimeout(options)]),
    tap: (selector, options) => call('click', [selector, withTimeout(options)]),
    type: (selector, text, options) => call('type', [selector, text, withTimeout(options)]),
    focus: (selector) => call('focus', [selector, withTimeout()]),
    hover: (selector) => call('hover', [selector, withTimeout()]),
    select: (selector, ...values) => call('select', [selector, values, withTimeout()]),
    evaluate: (fn, ...args) => call('evaluate', [fn, args]),
    evaluateHandle: (fn, ...args) => call('evaluateHandle', [fn, args]),
    $: (selector) => call('$', [selector]),
    $$: (selector) => call('$$', [selector]),
    $x: (xpath) => call('$$', ['xpath=' + xpath]),
    $eval: (selector, fn, ...args) => call('$eval', [selector, fn, args]),
    $$eval: (selector, fn, ...args) => call('$$eval', [selector, fn, args]),
    screenshot: (options) => call('screenshot', [withTimeout(options)]),
    pdf: (options) => call('pdf', [options || {}]),
    setUserAgent: (userAgent) => call('setUserAgent', [userAgent]),
    setExtraHTTPHeaders: (headers) => call('setExtraHTTPHeaders', [headers]),
    setCookie: (...cookies) => call('setCookie', [cookies]),
    cookies: (...urls) => call('cookies', [urls]),
    deleteCookie: (...cookies) => call('deleteCookie', [cookies]),
    emulateMediaType: (type) => call('emulateMediaType', [type === undefined ? null : type]),
    emulateMediaFeatures: (features) => call('emulateMediaFeatures', [features || []]),
    addScriptTag: (options) => call('addScriptTag', [options || {}]),
    addStyleTag: (options) => call('addStyleTag', [options || {}]),
    setDefaultTimeout: (ms) => { defaultTimeout = ms; },
    setDefaultNavigationTimeout: (ms) => { defaultNavigationTimeout = ms; },
    setJavaScriptEnabled: () => call('unsupported', ['page.setJavaScriptEnabled']),
    setRequestInterception: () => call('unsupported', ['page.setRequestInterception']),
    bringToFront: async () => {},
    isClosed: () => false,
    close: () => call('unsupported', ['page.close (the page belongs to Pressroom)']),
    browser: () => { throw new Error('page.browser() is not available in Pressroom scripts'); },
    on: (event, handler) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(handler);
      return page;
    },
    once: (event, handler) => {
      const wrapper = (value) => { page.off(event, wrapper); handler(value); };
      return page.on(event, wrapper);
    },
    off: (event, handler) => {
      const handlers = listeners.get(event);
      if (handlers) handlers.delete(handler);
      return page;
    },
    keyboard,
    mouse,
  };
  pageMethods.removeListener = pageMethods.off;
  pageMethods.addListener = pageMethods.on;
  const page = Object.freeze(pageMethods);

  // -- running the script --

  function where(error) {
    const match = /${SCRIPT_FILE}:(\d+):(\d+)/.exec(String(error && error.stack || ''));
    return match ? { line: Number(match[1]), column: Number(match[2]) } : {};
  }

  function describe(error) {
    const isError = error instanceof Error;
    return Object.assign({
      kind: 'thrown',
      name: isError ? error.name : 'Error',
      message: isError ? error.message : 'the script threw ' + show(error),
    }, where(error));
  }

  return Object.freeze({
    globals: { setTimeout, clearTimeout },
    start(userFunction) {
      Promise.resolve()
        .then(() => userFunction(page, consoleObject))
        .then((value) => {
          if (value instanceof Uint8Array || (value && value.buffer instanceof ArrayBuffer && value.BYTES_PER_ELEMENT === 1)) {
            bridge.done(true, JSON.stringify({ binary: toBase64(value) }));
          } else if (value === undefined) {
            bridge.done(true, '{}');
          } else {
            let json;
            try { json = JSON.stringify(value); } catch (error) {
              bridge.done(false, JSON.stringify({ kind: 'result', name: 'TypeError',
                message: 'the return value cannot be written as JSON: ' + error.message }));
              return;
            }
            bridge.done(true, JSON.stringify({ result: json }));
          }
        }, (error) => { bridge.done(false, JSON.stringify(describe(error))); });
    },
    describe,
  });
})
`;

// -- this realm: the protocol ----------------------------------------------------------------------

function syntaxError(error) {
  // "script.js:LINE\n<the line>\n    ^^^\n\nSyntaxError: message"
  const lines = String(error.stack || '').split('\n');
  const located = /^script\.js:(\d+)$/.exec(lines[0] || '');
  const caret = (lines[2] || '').indexOf('^');
  return {
    kind: 'syntax',
    name: 'SyntaxError',
    message: String(error.message),
    line: located ? Number(located[1]) : undefined,
    column: located && caret >= 0 ? caret + 1 : undefined,
  };
}

let shim = null;
const shimScript = new vm.Script(SHIM, { filename: 'pressroom-shim.js' }); // compiled once, run per script

function run(message) {
  running = true;
  const context = vm.createContext({}, { name: 'pressroom-script' });
  let userFunction;
  try {
    const script = new vm.Script(`(async function (page, console) {\n${message.source}\n})`, {
      filename: SCRIPT_FILE,
      lineOffset: -1,
    });
    shim = shimScript.runInContext(context)(bridge, {
      url: String(message.url || 'about:blank'),
      viewport: message.viewport || null,
    });
    Object.assign(context, shim.globals);
    userFunction = script.runInContext(context);
  } catch (error) {
    finish({ type: 'done', ok: false, error: syntaxError(error) });
    return;
  }
  shim.start(userFunction);
}

function failFromOutside(error) {
  // An error escaping the script's promise chain (thrown in a timer callback, say) ends the job.
  const described = shim ? shim.describe(error) : { kind: 'thrown', name: 'Error', message: String(error) };
  finish({ type: 'done', ok: false, error: described });
}

process.on('uncaughtException', failFromOutside);
process.on('unhandledRejection', (reason) => {
  send({ type: 'console', level: 'warn', text: 'a promise was rejected and nobody handled it: ' + String(reason && reason.message || reason) });
});

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.op === 'run') {
    run(message);
  } else if (message.op === 'reply') {
    const onReply = replies.get(message.call);
    replies.delete(message.call);
    if (onReply) onReply(Boolean(message.ok), JSON.stringify(message.value === undefined ? null : message.value), message.url);
  } else if (message.op === 'event' && eventSink) {
    eventSink(String(message.event), JSON.stringify(message.data || {}));
  }
});
input.on('close', () => process.exit(0));
send({ type: 'ready' });
