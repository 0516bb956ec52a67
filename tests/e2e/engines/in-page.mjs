// What the engine adapter (page.mjs) runs inside the page. `inPage` is sent as source text with
// every call, so it must not use anything from this module's scope: it finds elements, waits for
// them in the page itself (one round trip per wait, whatever the driver), prepares clicks and
// returns its result encoded by `encode` below, the same way in every engine.
//
// op: what to do; a: its arguments; fn: a test's function (or null), run on the elements found.
export async function inPage(op, a, fn) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  // ---- encoding: undefined, NaN, +-Infinity and -0 survive, DOM nodes are described ----
  const encode = (v, seen = new Set()) => {
    if (v === undefined) return { $u: 1 };
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return { $n: 'NaN' };
      if (!Number.isFinite(v)) return { $n: v > 0 ? 'Infinity' : '-Infinity' };
      if (Object.is(v, -0)) return { $n: '-0' };
      return v;
    }
    if (typeof v === 'bigint') return { $n: String(v) };
    if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? { $u: 1 } : v;
    if (typeof Node !== 'undefined' && v instanceof Node) return { $node: v.nodeName };
    if (seen.has(v)) return { $cycle: 1 };
    seen.add(v);
    let out;
    if (Array.isArray(v)) out = v.map((x) => encode(x, seen));
    else if (v instanceof Date) out = { $date: v.toISOString() };
    else if (v instanceof RegExp) out = String(v);
    else {
      out = {};
      for (const [k, x] of Object.entries(v)) out[k] = encode(x, seen);
    }
    seen.delete(v);
    return out;
  };
  const decode = (v) => {
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === 'object') {
      if (v.$u) return undefined;
      if (v.$n !== undefined) return Number(v.$n);
      if (v.$re) return new RegExp(v.$re, v.flags);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
    }
    return v;
  };
  // What the test server's hook script (hooks.js) saw since the last call: console errors, page
  // errors, CSP violations, requests. Taken with every call, so the test sees them in order.
  const take = () => (window.__e2e ? window.__e2e.seen.splice(0) : []);
  const done = (v) => JSON.stringify({ v: encode(v), seen: take(), url: location.href });
  const fail = (e) => JSON.stringify({ error: String(e && e.message ? e.message : e), seen: take(), url: location.href });

  // ---- locators: a chain of steps, each { css, hasText } or { nth } ----
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const hasText = (el, t) => {
    const text = norm(el.textContent ?? '');
    return t.$re ? new RegExp(t.$re, t.flags).test(text) : text.toLowerCase().includes(norm(t).toLowerCase());
  };
  const resolve = (chain) => {
    let els = [document];
    for (const step of chain) {
      if (step.css !== undefined) {
        const found = new Set();
        for (const root of els) for (const el of root.querySelectorAll(step.css)) found.add(el);
        els = [...found];
        if (els.length > 1) els.sort((x, y) => (x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
      }
      if (step.hasText !== undefined) els = els.filter((el) => hasText(el, step.hasText));
      if (step.nth !== undefined) {
        const i = step.nth < 0 ? els.length + step.nth : step.nth;
        els = els[i] ? [els[i]] : [];
      }
    }
    return els;
  };
  const visible = (el) => {
    if (!el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const describe = () => a.what ?? JSON.stringify(a.chain);
  // Polls `test` until it returns something other than undefined, at most `ms` (the adapter calls
  // again when its own deadline is further away: no single call outlives a driver's timeout).
  const poll = async (test, ms) => {
    const until = performance.now() + ms;
    for (;;) {
      const r = await test();
      if (r !== undefined) return r;
      if (performance.now() > until) return { $timeout: true };
      await sleep(a.interval ?? 30);
    }
  };
  // The one element a locator names (strict: more than one is an error, as in Playwright).
  const one = (els) => {
    if (els.length > 1 && a.strict) throw new Error(`${describe()} matches ${els.length} elements (strict: name one)`);
    return els[0];
  };
  // Waits for the element the locator names: { el }, or the timeout marker.
  const element = () => poll(() => {
    const els = resolve(a.chain);
    return els.length ? { el: one(els) } : undefined;
  }, a.slice);

  // Between finding where to click and the driver's click, the page may move (a list that arrives
  // and pushes the element down): the next trusted click sequence is checked here, and one that
  // would land on another element is stopped before the page sees it ('intercepted': the adapter
  // finds the element again and clicks again), as Playwright does.
  const guard = (el) => {
    if (window.__e2eGuard) window.__e2eGuard.remove();
    const types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
    const g = { verdict: null };
    const on = (e) => {
      if (!e.isTrusted) return;
      if (g.verdict === null) g.verdict = el.isConnected && (e.target === el || el.contains(e.target)) ? 'ok' : 'intercepted';
      if (g.verdict === 'intercepted') { e.preventDefault(); e.stopImmediatePropagation(); }
      if (e.type === 'click') g.remove();
    };
    g.remove = () => { for (const t of types) window.removeEventListener(t, on, true); };
    for (const t of types) window.addEventListener(t, on, true);
    window.__e2eGuard = g;
  };

  try {
    switch (op) {
      case 'eval': {
        const r = fn ? await fn(decode(a.arg)) : undefined;
        return done(r);
      }
      case 'waitFunction': {
        const arg = decode(a.arg);
        const r = await poll(async () => {
          const v = await fn(arg);
          if (v) return { value: v };
          if (a.raf) await frame();
          return undefined;
        }, a.slice);
        return done(r.$timeout ? r : r.value);
      }
      case 'count':
        return done(resolve(a.chain).length);
      case 'wait': {
        // state: attached | visible | hidden | detached
        const r = await poll(() => {
          const els = resolve(a.chain);
          if (a.strict && els.length > 1 && (a.state === 'attached' || a.state === 'visible')) {
            throw new Error(`${describe()} matches ${els.length} elements (strict: name one)`);
          }
          const el = els[0];
          const ok = a.state === 'attached' ? !!el
            : a.state === 'visible' ? !!el && visible(el)
              : a.state === 'hidden' ? !el || !visible(el)
                : !el;
          return ok ? true : undefined;
        }, a.slice);
        return done(r);
      }
      case 'elements': {
        // The test's function on the elements (all, or the one), waiting for one when asked.
        const r = await poll(() => {
          const els = resolve(a.chain);
          if (a.all) return { els };
          if (!els.length) return a.wait ? undefined : { missing: true };
          return { els: [one(els)] };
        }, a.slice);
        if (r.$timeout) return done(r);
        if (r.missing) throw new Error(`no element matches ${describe()}`);
        const arg = decode(a.arg);
        return done(await fn(a.all ? r.els : r.els[0], arg));
      }
      case 'act': {
        // Prepares a pointer action on an element: waits until it is visible, enabled and still
        // (the same box two frames in a row), scrolls it into view and checks that the point to
        // click is not covered by another element. Returns the point in viewport pixels.
        const r = await poll(async () => {
          const els = resolve(a.chain);
          if (!els.length) return undefined;
          const el = one(els);
          if (!visible(el)) return undefined;
          if (a.enabled !== false && (el.disabled || el.closest('fieldset[disabled]'))) return undefined;
          let box = el.getBoundingClientRect();
          if (box.bottom < 0 || box.right < 0 || box.top > innerHeight || box.left > innerWidth
            || box.top < 0 || box.bottom > innerHeight) {
            el.scrollIntoView({ block: 'center', inline: 'nearest' });
          }
          await frame();
          box = el.getBoundingClientRect();
          await frame();
          const again = el.getBoundingClientRect();
          if (box.x !== again.x || box.y !== again.y || box.width !== again.width || box.height !== again.height) return undefined;
          const x = box.x + (a.position ? a.position.x : box.width / 2);
          const y = box.y + (a.position ? a.position.y : box.height / 2);
          if (a.hitTest !== false) {
            const hit = document.elementFromPoint(x, y);
            if (!hit || !(hit === el || el.contains(hit) || (el.control && el.control === hit) || (hit.closest('label') && hit.closest('label').control === el))) {
              return undefined;
            }
          }
          if (a.guard) guard(el);
          return { x, y, checked: el.checked };
        }, a.slice);
        return done(r);
      }
      case 'guardResult': {
        const g = window.__e2eGuard;
        window.__e2eGuard = null;
        if (g) g.remove();
        return done(g ? g.verdict : null);
      }
      case 'checked': {
        const els = resolve(a.chain);
        if (!els.length) throw new Error(`no element matches ${describe()}`);
        return done(!!one(els).checked);
      }
      case 'fill': {
        // As Playwright's fill: focus, replace the value, fire input and change.
        const r = await poll(() => {
          const els = resolve(a.chain);
          return els.length && visible(els[0]) ? { el: one(els) } : undefined;
        }, a.slice);
        if (r.$timeout) return done(r);
        const el = r.el;
        el.focus();
        const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, a.value);
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return done(true);
      }
      case 'select': {
        const r = await element();
        if (r.$timeout) return done(r);
        const el = r.el;
        const want = [].concat(a.values);
        const picked = [...el.options].filter((o) => want.includes(o.value) || want.includes(o.label));
        if (!picked.length) throw new Error(`${describe()} has no option ${JSON.stringify(a.values)}`);
        for (const o of el.options) o.selected = picked.includes(o);
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return done(picked.map((o) => o.value));
      }
      case 'focus': {
        const r = await element();
        if (r.$timeout) return done(r);
        r.el.focus();
        return done(true);
      }
      case 'dispatch': {
        const r = await element();
        if (r.$timeout) return done(r);
        const init = { bubbles: true, cancelable: true, composed: true, ...decode(a.init ?? {}) };
        const type = a.type;
        const Ctor = /^drag|^drop$/.test(type) ? DragEvent : /^(click|dblclick|mouse)/.test(type) ? MouseEvent
          : /^key/.test(type) ? KeyboardEvent : /^focus|^blur/.test(type) ? FocusEvent : Event;
        r.el.dispatchEvent(new Ctor(type, init));
        return done(true);
      }
      case 'box': {
        const els = resolve(a.chain);
        if (!els.length) throw new Error(`no element matches ${describe()}`);
        const el = one(els);
        if (!visible(el)) return done(null);
        const b = el.getBoundingClientRect();
        return done({ x: b.x, y: b.y, width: b.width, height: b.height });
      }
      case 'mark': {
        // Names the element for a driver's own element lookup (file inputs), by a unique attribute.
        const r = await element();
        if (r.$timeout) return done(r);
        r.el.setAttribute('data-e2e-mark', a.mark);
        return done(true);
      }
      case 'unmark':
        for (const el of document.querySelectorAll(`[data-e2e-mark="${a.mark}"]`)) el.removeAttribute('data-e2e-mark');
        return done(true);
      case 'history': {
        // Back or forward within the page's history, waiting for the popstate and two frames (the
        // app renders on popstate).
        const before = location.href;
        const popped = new Promise((r) => addEventListener('popstate', () => r(true), { once: true }));
        if (a.dir < 0) history.back(); else history.forward();
        const ok = await Promise.race([popped, sleep(a.slice).then(() => false)]);
        await frame();
        await frame();
        return done({ ok, before, after: location.href });
      }
      case 'take':
        return done(null);
      default:
        throw new Error(`unknown in-page operation ${op}`);
    }
  } catch (e) {
    return fail(e);
  }
}
