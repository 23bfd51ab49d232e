// Idem's console: every figure on a page is a command's reply, run through POST /console/api/call
// as any client's command would run. Pages refresh themselves every two seconds.
'use strict';

const main = document.getElementById('main');
const statusEl = document.getElementById('status');
const REFRESH_MS = 2000;
const HISTORY = 150; // samples a chart keeps: five minutes at one each two seconds
let refreshTimer = null;
let pageToken = 0; // a page's refreshes stop once another page is shown

class CallError extends Error {}

/** Runs one command; its reply, or a CallError with the server's error text. */
async function call(...args) {
  const body = new URLSearchParams();
  for (const a of args) body.append('arg', String(a));
  const res = await fetch('/console/api/call', {
    method: 'POST',
    headers: { 'X-Idem-Console': '1', 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
    credentials: 'same-origin',
  });
  if (res.status === 401) {
    showSignIn();
    throw new CallError('sign in first');
  }
  const j = await res.json();
  if (j.error !== undefined) throw new CallError(j.error);
  return j.reply;
}

/** An element: h('td', {class: 'num'}, 'text', child, ...). Text is always text, never HTML. */
function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'style') e.style.cssText = v; // through the CSSOM: the page's CSP refuses style attributes
    else if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** INFO's text as {section: {field: value}}, sections in lower case. */
function parseInfo(text) {
  const out = {};
  let section = null;
  for (const line of String(text).split(/\r?\n/)) {
    if (line.startsWith('# ')) {
      section = line.slice(2).trim().toLowerCase();
      out[section] = {};
    } else if (section && line.includes(':')) {
      const i = line.indexOf(':');
      out[section][line.slice(0, i)] = line.slice(i + 1);
    }
  }
  return out;
}

/** "a=1,b=2" as {a: '1', b: '2'}. */
function pairs(text) {
  const out = {};
  for (const p of String(text || '').split(',')) {
    const i = p.lastIndexOf('=');
    if (i > 0) out[p.slice(0, i)] = p.slice(i + 1);
  }
  return out;
}

function bytes(n) {
  n = Number(n);
  if (!isFinite(n) || n < 0) return String(n);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
  return (u === 0 ? n : n.toFixed(n < 10 ? 2 : 1)) + ' ' + units[u];
}

function num(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : String(n);
}

function tile(label, value, key) {
  return h('div', { class: 'tile' }, h('div', { class: 'label' }, label),
    h('div', { class: 'value', 'data-k': key }, value));
}

/** A table from rows of cells; a header row first. */
function table(head, rows, numeric = []) {
  return h('table', {},
    h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { class: numeric.includes(i) ? 'num' : null }, c)))),
    h('tbody', {}, rows.map(r => h('tr', {}, r.map((c, i) => h('td', { class: numeric.includes(i) ? 'num' : null }, c))))));
}

/** A map reply (an object) as a two-column table, each value in a cell marked data-k. */
function mapTable(m) {
  return h('table', { class: 'info' }, h('tbody', {}, Object.entries(m).map(([k, v]) =>
    h('tr', {}, h('th', {}, k), h('td', { 'data-k': k }, show(v))))));
}

function show(v) {
  if (v === null) return '(nil)';
  if (Array.isArray(v)) return v.map(show).join(', ');
  if (typeof v === 'object') return Object.entries(v).map(([k, x]) => k + ': ' + show(x)).join(', ');
  return String(v);
}

function errorBox(e) {
  return h('div', { class: 'error' }, e instanceof Error ? e.message : String(e));
}

/**
 * A line chart. Series are labels, or {label, points: true, line: false}; options: time (x is
 * unix seconds, the default), logX, logY, xLabel, yLabel. Returns {set(xs, ...ys)}; a time chart
 * with fewer than two samples says it is still collecting.
 */
function chart(parent, title, series, opts = {}) {
  const box = h('div', { class: 'chart' }, h('div', { class: 'muted' }, title));
  parent.append(box);
  const colors = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
  const time = opts.time !== false;
  let plot = null;
  const make = data => new uPlot({
    width: Math.max(320, (opts.width || main.clientWidth - 40)),
    height: opts.height || 220,
    scales: { x: Object.assign({ time }, opts.logX ? { distr: 3 } : {}), y: opts.logY ? { distr: 3 } : {} },
    // Log axes' small ticks would read 0 in uPlot's default format: 1e-4 reads as such.
    axes: [Object.assign({ label: opts.xLabel }, opts.logX ? { values: logTicks } : {}),
      Object.assign({ label: opts.yLabel, size: 80 }, opts.logY ? { values: logTicks } : {})],
    series: [{ label: opts.xLabel || 'time' }, ...series.map((s, i) => {
      const o = typeof s === 'string' ? { label: s } : s;
      return {
        label: o.label,
        stroke: colors[i % colors.length],
        width: o.line === false ? 0 : 2,
        spanGaps: true,
        paths: o.line === false ? () => null : undefined,
        points: { show: o.points || false, size: o.line === false ? 9 : 5 },
      };
    })],
  }, data, box);
  const note = h('p', { class: 'muted' }, 'Collecting samples: the chart starts at the second.');
  return {
    set(xs, ...ys) {
      if (time && xs.length < 2) {
        if (!note.isConnected) box.append(note);
        return;
      }
      note.remove();
      if (plot) plot.setData([xs, ...ys]);
      else plot = make([xs, ...ys]);
    },
  };
}

function logTicks(u, values) {
  return values.map(v => (v === null ? '' : Math.abs(v) < 0.001 && v !== 0 ? v.toExponential(0)
    : v.toLocaleString('en-US', { maximumSignificantDigits: 3 })));
}

/** Merges series sampled at different xs into one sorted x array with nulls where one has none. */
function aligned(...sets) {
  const xs = [...new Set(sets.flatMap(s => s.xs))].sort((a, b) => a - b);
  return [xs, ...sets.map(s => {
    const at = new Map(s.xs.map((x, i) => [x, s.ys[i]]));
    return xs.map(x => (at.has(x) ? at.get(x) : null));
  })];
}

/** What the core's sizing gives for N items at rate E (the Sizing page's and a filter's curves). */
async function sizing(capacity, error) {
  const res = await fetch('/console/api/sizing?' + new URLSearchParams({ capacity, error }), { credentials: 'same-origin' });
  const j = await res.json();
  if (j.error !== undefined) throw new CallError(j.error);
  return j;
}

/** Shows a page: a title, and a refresh run now and every two seconds until another page. */
function page(title, refresh) {
  const token = ++pageToken;
  clearTimeout(refreshTimer);
  main.replaceChildren(h('h1', {}, title));
  const body = h('div', {});
  const err = h('div', {});
  main.append(err, body);
  let generation = 0; // a refresh asked for meanwhile (after an action) replaces the timer's
  const run = async () => {
    if (token !== pageToken) return;
    const mine = ++generation;
    clearTimeout(refreshTimer);
    try {
      await refresh(body);
      err.replaceChildren();
      statusEl.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (e) {
      if (!(e instanceof CallError && e.message === 'sign in first')) err.replaceChildren(errorBox(e));
    }
    if (token === pageToken && mine === generation) refreshTimer = setTimeout(run, REFRESH_MS);
  };
  return { body, start: run, token };
}

// ---- Overview

function overviewPage() {
  const families = new Map(); // family -> series index
  let prev = null;
  let famChart = null;
  const famHistory = { t: [], values: {} };
  const p = page('Overview', async body => {
    const [text, keys] = await Promise.all([call('INFO', 'everything'), call('DBSIZE')]);
    const info = parseInfo(text);
    const s = Object.assign({}, ...Object.values(info));
    const now = Date.now() / 1000;
    const tiles = h('div', { class: 'tiles' },
      tile('Commands a second', num(Number(s.instantaneous_ops_per_sec)), 'instantaneous_ops_per_sec'),
      tile('Connected clients', s.connected_clients, 'connected_clients'),
      tile('Keys', num(keys), 'dbsize'),
      tile('Memory used', s.used_memory_human, 'used_memory_human'),
      tile('JVM heap', s.jvm_heap_used_human + ' of ' + s.jvm_heap_max_human, 'jvm_heap'),
      tile('Log: changes not yet durable', s.journal_pending, 'journal_pending'),
      tile('Log', s.journal_status, 'journal_status'),
      tile('Last snapshot', Math.max(0, Math.round(now - Number(s.rdb_last_save_time))) + ' s ago', 'rdb_last_save_age'),
      tile('Changes since snapshot', num(Number(s.rdb_changes_since_last_save)), 'rdb_changes_since_last_save'),
      tile('Disk', bytes(s.disk_bytes), 'disk_bytes'),
      tile('RocksDB compactions running', s.rocksdb_running_compactions, 'rocksdb_running_compactions'),
      tile('RocksDB bytes to compact', bytes(s.rocksdb_pending_compaction_bytes), 'rocksdb_pending_compaction_bytes'),
      tile('RocksDB SST files', bytes(s.rocksdb_sst_bytes), 'rocksdb_sst_bytes'),
      tile('RocksDB memtables', bytes(s.rocksdb_memtable_bytes), 'rocksdb_memtable_bytes'),
      tile('Uptime', s.uptime_in_seconds + ' s', 'uptime_in_seconds'));

    // Commands a second by family, from the counters' differences between refreshes.
    const calls = {};
    for (const [k, v] of Object.entries(info.commandstats || {})) {
      const name = k.replace(/^cmdstat_/, '');
      const fam = name.includes('.') ? name.split('.')[0] : 'server';
      calls[fam] = (calls[fam] || 0) + Number(pairs(v).calls || 0);
    }
    if (prev) {
      const dt = Math.max(0.001, now - prev.t);
      famHistory.t.push(now);
      for (const f of Object.keys(calls)) {
        if (!famHistory.values[f]) famHistory.values[f] = famHistory.t.map(() => 0);
      }
      for (const [f, arr] of Object.entries(famHistory.values)) {
        arr.push(Math.max(0, ((calls[f] || 0) - (prev.calls[f] || 0)) / dt));
      }
      if (famHistory.t.length > HISTORY) {
        famHistory.t.shift();
        Object.values(famHistory.values).forEach(a => a.shift());
      }
    }
    prev = { t: now, calls };

    const lat = Object.entries(info.latencystats || {}).map(([k, v]) => {
      const p = pairs(v);
      return [k.replace(/^latency_percentiles_usec_/, ''), p.p50, p.p99, p['p99.9']];
    });
    const types = Object.entries(pairs(s.used_memory_by_type));
    const maxType = Math.max(1, ...types.map(([, b]) => Number(b)));
    const parts = [tiles];

    const famNames = Object.keys(famHistory.values).sort();
    const famBox = h('div', {});
    parts.push(h('h2', {}, 'Commands a second, by family'), famBox);
    parts.push(h('div', { class: 'grid2' },
      h('div', {}, h('h2', {}, 'Latency by command (µs)'),
        lat.length ? table(['command', 'p50', 'p99', 'p99.9'], lat, [1, 2, 3]) : h('p', { class: 'muted' }, 'No commands yet.')),
      h('div', {}, h('h2', {}, 'Memory by type'),
        table(['type', 'bytes', ''], types.map(([t, b]) => [t, h('span', { 'data-type': t }, num(Number(b))),
          h('div', { class: 'bar' }, h('div', { style: 'width:' + (100 * Number(b) / maxType).toFixed(1) + '%' }))]), [1]))));
    if (s.cluster_enabled === '1') {
      const nodes = String(await call('CLUSTER', 'NODES')).trim().split('\n').filter(Boolean).map(l => l.split(' '));
      parts.push(h('h2', {}, 'Cluster'),
        h('div', { class: 'tiles' },
          tile('Membership', s.cluster_membership_status, 'cluster_membership_status'),
          tile('Live nodes', s.cluster_live_nodes, 'cluster_live_nodes'),
          tile('Log applied (this node)', s.cluster_log_applied, 'cluster_log_applied'),
          tile('Caught up', s.cluster_log_caught_up, 'cluster_log_caught_up')),
        table(['node', 'address', 'flags', 'state', 'slots'], nodes.map(n => [n[0], n[1], n[2], n[7], n.slice(8).join(' ')])),
        h('h2', {}, 'This node\'s place in the log (next offset to apply, by partition)'),
        table(['partition', 'next offset'], Object.entries(pairs(s.cluster_log_offsets)).map(([p, o]) =>
          [p, h('span', { 'data-offset': p }, num(Number(o)))]), [1]));
    }
    body.replaceChildren(...parts);
    if (famNames.length) {
      famChart = chart(famBox, 'commands a second', famNames, { yLabel: 'commands/s' });
      famChart.set(famHistory.t.slice(), ...famNames.map(f => famHistory.values[f].slice()));
    } else {
      famBox.append(h('p', { class: 'muted' }, 'Measured from the second refresh on.'));
    }
  });
  p.start();
}

// ---- Keys

const TYPES = ['', 'MBbloom--', 'MBbloomCF', 'dedup', 'counter', 'distinct', 'TopK-TYPE', 'TDIS-TYPE', 'CMSk-TYPE', 'idemkey', 'queue', 'string'];

function keysPage(query) {
  const params = new URLSearchParams(query || '');
  const pattern = h('input', { name: 'pattern', value: params.get('match') || '*', placeholder: 'pattern, e.g. orders:*' });
  const type = h('select', { name: 'type' }, TYPES.map(t => h('option', { value: t }, t || 'any type')));
  type.value = params.get('type') || '';
  main.replaceChildren(h('h1', {}, 'Keys'),
    h('form', { class: 'inline', onsubmit: ev => {
      ev.preventDefault();
      location.hash = '#/keys?' + new URLSearchParams({ match: pattern.value, type: type.value });
    } }, pattern, type, h('button', { type: 'submit' }, 'Search')));
  const out = h('div', { id: 'key-results' });
  main.append(out);
  ++pageToken;
  clearTimeout(refreshTimer);
  (async () => {
    try {
      let cursor = '0';
      const found = [];
      for (let i = 0; i < 50 && found.length < 200; i++) {
        const args = ['SCAN', cursor, 'MATCH', pattern.value || '*', 'COUNT', 1000];
        if (type.value) args.push('TYPE', type.value);
        const [next, keys] = await call(...args);
        found.push(...keys);
        cursor = String(next);
        if (cursor === '0') break;
      }
      const shown = found.slice(0, 200).sort();
      const rows = await Promise.all(shown.map(async k => {
        const [t, m] = await Promise.all([call('TYPE', k), call('MEMORY', 'USAGE', k)]);
        return [h('a', { href: '#/key/' + encodeURIComponent(k), 'data-key': k }, k), t, num(m)];
      }));
      out.replaceChildren(h('p', { class: 'muted' }, shown.length + ' keys' + (cursor !== '0' ? ' (more not shown)' : '')),
        table(['key', 'type', 'memory (bytes)'], rows, [2]));
    } catch (e) {
      out.replaceChildren(errorBox(e));
    }
  })();
}

/**
 * A filter's fill and rates: the configured rate, the estimated rate now (sampled as the filter
 * fills), and the curve the core's sizing gives for a first layer of this capacity and rate.
 */
function filterSection(key, infoCmd) {
  const points = { xs: [], ys: [] };
  let model = null;
  let firstLayer = 0;
  return async body => {
    const info = await call(infoCmd, key);
    const field = async f => Object.values(await call(infoCmd, key, f))[0];
    const [capacity, error, fprate] = await Promise.all([field('CAPACITY'), field('ERROR'), field('FPRATE')]);
    const layout = infoCmd === 'BF.INFO' ? await field('LAYOUT') : 'cuckoo';
    const items = Number(info['Number of items inserted']);
    const scaling = infoCmd === 'BF.INFO' && info['Expansion rate'] !== null;
    if (points.xs[points.xs.length - 1] !== items) {
      points.xs.push(items);
      points.ys.push(Number(fprate) > 0 ? Number(fprate) : null);
    }
    if (!model) {
      // A scaling Bloom filter's first layer is sized at half the rate (so the compound stays
      // under it), for the first share of its capacity: layer i holds expansion^i of that share.
      const layers = Number(info['Number of filters'] || 1);
      const x = Number(info['Expansion rate'] || 1);
      const share = x === 1 ? layers : (Math.pow(x, layers) - 1) / (x - 1);
      firstLayer = Math.max(1, Math.round(Number(capacity) / share));
      const m = await sizing(scaling ? firstLayer : capacity, scaling ? Number(error) / 2 : error);
      const rates = m.rates[layout === 'classic' ? 'classic' : layout === 'cuckoo' ? 'cuckoo' : 'bloom'];
      model = { xs: m.items, ys: rates.map(v => (v > 0 ? v : null)) }; // a log scale has no 0
    }
    const fill = Math.min(1, items / Math.max(1, Number(capacity)));
    const box = h('div', {});
    body.replaceChildren(
      h('div', { class: 'tiles' },
        tile('Items', num(items), 'items'), tile('Capacity', num(Number(capacity)), 'capacity'),
        tile('Fill', (100 * fill).toFixed(1) + ' %', 'fill'),
        tile('Configured rate', String(error), 'error'), tile('Estimated rate now', Number(fprate).toExponential(3), 'fprate'),
        tile('Bytes', num(Number(info.Size)), 'size')),
      h('div', { class: 'bar', style: 'margin:10px 0' }, h('div', { style: 'width:' + (100 * fill).toFixed(1) + '%' })),
      box, h('h2', {}, infoCmd), mapTable(info));
    const configured = { xs: model.xs, ys: model.xs.map(() => Number(error)) };
    chart(box, 'false-positive rate against items: the ' + layout + ' layout\'s curve for ' + (scaling
      ? 'its first layer (' + num(firstLayer) + ' items at ' + Number(error) / 2 + '; later layers add their own rates)'
      : 'this capacity and rate') + ', and the server\'s estimate of the whole filter as sampled',
      ['expected at that load', 'configured rate', { label: 'estimated now', points: true, line: false }],
      { time: false, xLabel: 'items', yLabel: 'rate', logY: true })
      .set(...aligned(model, configured, points));
  };
}

async function keyPage(key) {
  const type = await call('TYPE', key).catch(e => e);
  if (type instanceof Error) { main.replaceChildren(errorBox(type)); return; }
  const title = key + '  (' + type + ')';
  switch (type) {
    case 'MBbloom--':
      page(title, filterSection(key, 'BF.INFO')).start();
      return;
    case 'MBbloomCF':
      page(title, filterSection(key, 'CF.INFO')).start();
      return;
    case 'queue':
      location.hash = '#/queue/' + encodeURIComponent(key);
      return;
    case 'counter':
      counterPage(title, key);
      return;
    case 'TDIS-TYPE':
      page(title, async body => {
        const qs = Array.from({ length: 21 }, (_, i) => i / 20);
        const [info, values] = await Promise.all([call('TDIGEST.INFO', key), call('TDIGEST.QUANTILE', key, ...qs)]);
        const box = h('div', {});
        body.replaceChildren(box, h('h2', {}, 'TDIGEST.INFO'), mapTable(info),
          h('h2', {}, 'Quantiles'), table(['quantile', 'value'], qs.map((q, i) => [q, values[i]]), [0, 1]));
        chart(box, 'quantile curve', ['value'], { time: false, xLabel: 'quantile', points: true })
          .set(qs, values.map(Number));
      }).start();
      return;
    case 'TopK-TYPE':
      page(title, async body => {
        const [info, list] = await Promise.all([call('TOPK.INFO', key), call('TOPK.LIST', key, 'WITHCOUNT')]);
        const rows = [];
        for (let i = 0; i + 1 < list.length; i += 2) rows.push([list[i], list[i + 1]]);
        const max = Math.max(1, ...rows.map(r => Number(r[1])));
        body.replaceChildren(h('h2', {}, 'Top items'),
          table(['item', 'count', ''], rows.map(([item, c]) => [item, num(c),
            h('div', { class: 'bar' }, h('div', { style: 'width:' + (100 * c / max).toFixed(1) + '%' }))]), [1]),
          h('h2', {}, 'TOPK.INFO'), mapTable(info));
      }).start();
      return;
    default: {
      const infoCmd = { dedup: 'DEDUP.INFO', distinct: 'DISTINCT.INFO', 'CMSk-TYPE': 'CMS.INFO', idemkey: 'IDEMKEY.INFO' }[type];
      page(title, async body => {
        const [mem, ttl] = await Promise.all([call('MEMORY', 'USAGE', key), call('PTTL', key)]);
        const parts = [h('div', { class: 'tiles' }, tile('Memory', num(mem) + ' B', 'memory'),
          tile('Time to live', ttl < 0 ? 'none' : Math.round(ttl / 1000) + ' s', 'ttl'))];
        if (infoCmd) {
          parts.push(h('h2', {}, infoCmd), mapTable(await call(infoCmd, key)));
        }
        if (type === 'dedup') {
          const slices = await call('DEDUP.SLICES', key);
          const age = ms => (ms < 120000 ? Math.round(ms / 1000) + ' s' : ms < 7200000 ? Math.round(ms / 60000) + ' min' : (ms / 3600000).toFixed(1) + ' h');
          parts.push(h('h2', {}, 'Slices (DEDUP.SLICES), oldest first'),
            slices.length ? table(['starts', 'age', 'items', 'duplicates caught', 'bytes'], slices.map(sl =>
              [new Date(sl.start).toLocaleString(), age(sl.age), h('span', { 'data-slice-items': sl.start }, num(sl.items)),
                h('span', { 'data-slice-duplicates': sl.start }, num(sl.duplicates)), sl.bytes === undefined ? '' : num(sl.bytes)]), [2, 3, 4])
              : h('p', { class: 'muted' }, 'No claims in the window.'));
        }
        if (type === 'idemkey') {
          const pending = await call('IDEMKEY.PENDING', key);
          parts.push(h('h2', {}, 'In progress'), h('pre', {}, JSON.stringify(pending, null, 1)));
        }
        body.replaceChildren(...parts);
      }).start();
    }
  }
}

function counterPage(title, key) {
  const name = h('input', { placeholder: 'a name counted in this table', id: 'counter-name' });
  const form = h('form', { class: 'inline' }, name, h('button', { type: 'submit' }, 'Show its series'));
  let wanted = '';
  form.addEventListener('submit', ev => { ev.preventDefault(); wanted = name.value; });
  const p = page(title, async body => {
    const info = await call('COUNTER.INFO', key);
    const parts = [form];
    const box = h('div', {});
    parts.push(box, h('h2', {}, 'COUNTER.INFO'), mapTable(info));
    const res = info.Resolutions || [];
    let series = null;
    if (wanted && res.length) {
      // Windows of 1..n of the finest buckets, ending now: their differences are each bucket's count.
      const [bucket, retention] = res[0].map(Number);
      const n = Math.max(1, Math.min(48, Math.floor(retention / bucket)));
      const windows = Array.from({ length: n }, (_, i) => (i + 1) * bucket + 'ms');
      const [sums] = await call('COUNTER.QUERY', key, '*', ...windows, 'NAMES', wanted);
      const now = Date.now();
      const xs = [], ys = [];
      for (let i = n - 1; i >= 0; i--) {
        xs.push((now - i * bucket) / 1000);
        ys.push(Number(sums[i]) - (i > 0 ? Number(sums[i - 1]) : 0));
      }
      series = { xs, ys, bucket };
    }
    body.replaceChildren(...parts);
    if (series) {
      chart(box, 'count of ' + wanted + ' per ' + series.bucket / 1000 + ' s bucket', [wanted], { yLabel: 'count', points: true })
        .set(series.xs, series.ys);
    }
  });
  p.start();
}

// ---- Queues

function queuesPage() {
  page('Queues', async body => {
    const info = parseInfo(await call('INFO', 'queues')).queues || {};
    const rows = Object.entries(info).filter(([k]) => /^queue\d+$/.test(k)).map(([, v]) => {
      const q = pairs(v);
      return [h('a', { href: '#/queue/' + encodeURIComponent(q.name), 'data-queue': q.name }, q.name),
        num(Number(q.ready)), num(Number(q.delayed)), num(Number(q.leased)), num(Number(q.dead))];
    });
    body.replaceChildren(h('p', { class: 'muted' }, (info.queues || 0) + ' queues'),
      table(['queue', 'ready', 'delayed', 'leased', 'dead'], rows, [1, 2, 3, 4]));
  }).start();
}

function queuePage(key) {
  const history = { t: [], ready: [], delayed: [], leased: [], dead: [] };
  const jobId = h('input', { placeholder: 'job id', id: 'job-id' });
  const jobOut = h('div', { id: 'job' });
  const actionOut = h('div', { id: 'action-result', class: 'muted' });
  const act = async (label, ...args) => {
    try {
      const r = await call(...args);
      actionOut.textContent = label + ': ' + show(r);
    } catch (e) {
      actionOut.textContent = label + ': ' + e.message;
    }
    p.start();
  };
  let listedOnce = false;
  const showJob = async id => {
    try {
      const job = await call('QUEUE.JOB', key, id);
      jobOut.replaceChildren(job === null ? h('p', { class: 'muted' }, 'No job ' + id + ' (acked, cancelled, purged or never added).')
        : h('div', {}, mapTable(job), h('p', {},
          h('button', { class: 'danger', onclick: () => act('cancel ' + id, 'QUEUE.CANCEL', key, id) }, 'Cancel this job'),
          ' ', job.state === 'dead' ? h('button', { onclick: () => act('replay ' + id, 'QUEUE.REPLAY', key, id) }, 'Replay') : null)));
    } catch (e) {
      jobOut.replaceChildren(errorBox(e));
    }
  };
  const jobForm = h('form', { class: 'inline', onsubmit: ev => { ev.preventDefault(); showJob(jobId.value); } },
    jobId, h('button', { type: 'submit' }, 'Find job'));
  // Jobs listed and filtered (QUEUE.JOBS), with actions on one job or on the listed set.
  const stateSel = h('select', { id: 'jobs-state' }, ['', 'ready', 'delayed', 'leased', 'dead', 'waiting-children']
    .map(s => h('option', { value: s }, s || 'any state')));
  const groupIn = h('input', { id: 'jobs-group', placeholder: 'group' });
  const matchIn = h('input', { id: 'jobs-match', placeholder: 'id pattern, e.g. welcome-*' });
  const jobsOut = h('div', { id: 'jobs' });
  const listJobs = async cursor => {
    const args = ['QUEUE.JOBS', key, 'COUNT', 100, 'CURSOR', cursor || 0];
    if (stateSel.value) args.push('STATE', stateSel.value);
    if (groupIn.value) args.push('GROUP', groupIn.value);
    if (matchIn.value) args.push('MATCH', matchIn.value);
    try {
      // A page may come back short or empty while the cursor goes on (as SCAN's): gather up to 100.
      let [next, jobs] = await call(...args);
      for (let i = 0; i < 20 && String(next) !== '0' && jobs.length < 100; i++) {
        args[5] = next;
        const [n2, more] = await call(...args);
        next = n2;
        jobs = jobs.concat(more);
      }
      const ids = jobs.map(j => j.id);
      const dead = jobs.filter(j => j.state === 'dead').map(j => j.id);
      jobsOut.replaceChildren(
        h('p', { class: 'muted' }, jobs.length + ' jobs' + (String(next) !== '0' ? ' (more: next page)' : '')),
        jobs.length ? table(['id', 'state', 'group', 'attempts', 'due', 'payload'], jobs.map(j =>
          [h('a', { href: '#', 'data-job': j.id, onclick: ev => { ev.preventDefault(); showJob(j.id); } }, j.id), j.state,
            j.group === null ? '' : j.group, j.attempts, new Date(Number(j.due)).toLocaleString(), String(j.payload).slice(0, 80)]), [3])
          : h('p', { class: 'muted' }, 'No job matches.'),
        h('p', {},
          ids.length ? h('button', { class: 'danger', id: 'cancel-listed', onclick: () => act('cancel ' + ids.length + ' jobs', 'QUEUE.CANCEL', key, ...ids).then(() => listJobs()) }, 'Cancel these ' + ids.length + ' jobs') : null,
          ' ', dead.length ? h('button', { id: 'replay-listed', onclick: async () => {
            for (const id of dead) await call('QUEUE.REPLAY', key, id);
            actionOut.textContent = 'replayed ' + dead.length + ' dead letters';
            listJobs();
            p.start();
          } }, 'Replay these ' + dead.length + ' dead letters') : null,
          ' ', String(next) !== '0' ? h('button', { class: 'secondary', onclick: () => listJobs(next) }, 'Next page') : null));
    } catch (e) {
      jobsOut.replaceChildren(errorBox(e));
    }
  };
  // The queue's limits and a group's settings, as QUEUE.CONFIG and QUEUE.GROUP take them.
  const words = text => text.trim().split(/\s+/).filter(Boolean);
  const configIn = h('input', { id: 'config-options', size: 40, placeholder: 'e.g. GROUP-CONCURRENCY 2 RATE 100 1m' });
  const configForm = h('form', { class: 'inline', onsubmit: ev => {
    ev.preventDefault();
    act('QUEUE.CONFIG', 'QUEUE.CONFIG', key, ...words(configIn.value));
  } }, 'QUEUE.CONFIG ' + key, configIn, h('button', { type: 'submit', id: 'config-apply' }, 'Apply'));
  const groupName = h('input', { id: 'group-name', placeholder: 'group' });
  const groupOptions = h('input', { id: 'group-options', size: 32, placeholder: 'e.g. WEIGHT 3 CONCURRENCY 2' });
  const groupForm = h('form', { class: 'inline', onsubmit: ev => {
    ev.preventDefault();
    act('QUEUE.GROUP ' + groupName.value, 'QUEUE.GROUP', key, groupName.value, ...words(groupOptions.value));
  } }, 'QUEUE.GROUP ' + key, groupName, groupOptions, h('button', { type: 'submit', id: 'group-apply' }, 'Apply'));
  const jobsForm = h('form', { class: 'inline', onsubmit: ev => { ev.preventDefault(); listJobs(); } },
    stateSel, groupIn, matchIn, h('button', { type: 'submit', id: 'jobs-search' }, 'List jobs'));

  const p = page('Queue ' + key, async body => {
    const [info, dead, groups, schedules] = await Promise.all([
      call('QUEUE.INFO', key), call('QUEUE.DEAD', key, 'COUNT', 100), call('QUEUE.GROUPS', key, 'COUNT', 100),
      call('QUEUE.SCHEDULES', key)]);
    history.t.push(Date.now() / 1000);
    for (const s of ['ready', 'delayed', 'leased', 'dead']) history[s].push(Number(info[s]));
    if (history.t.length > HISTORY) Object.values(history).forEach(a => a.shift());
    const paused = Number(info.paused) === 1;
    const box = h('div', {});
    body.replaceChildren(
      h('div', { class: 'tiles' }, ...Object.entries(info).map(([k, v]) => tile(k, String(v), k))),
      h('p', {}, paused
        ? h('button', { id: 'resume', onclick: () => act('resume', 'QUEUE.RESUME', key) }, 'Resume queue')
        : h('button', { id: 'pause', class: 'secondary', onclick: () => act('pause', 'QUEUE.PAUSE', key) }, 'Pause queue'),
        ' ', h('button', { id: 'replay-all', onclick: () => act('replay all', 'QUEUE.REPLAY', key, 'ALL') }, 'Replay all dead letters'),
        ' ', h('button', { id: 'purge', class: 'danger', onclick: () => act('purge', 'QUEUE.PURGE', key) }, 'Delete dead letters')),
      actionOut, box,
      h('h2', {}, 'Dead letters'),
      dead.length ? table(['id', 'payload', 'attempts', 'errors', ''], dead.map(([id, payload, attempts, errors]) =>
        [id, payload, attempts, (errors || []).join(' | '),
          h('span', {}, h('button', { class: 'secondary', 'data-replay': id, onclick: () => act('replay ' + id, 'QUEUE.REPLAY', key, id) }, 'Replay'),
            ' ', h('button', { class: 'danger', 'data-cancel': id, onclick: () => act('delete ' + id, 'QUEUE.CANCEL', key, id) }, 'Delete'))]), [2])
        : h('p', { class: 'muted' }, 'None.'),
      h('h2', {}, 'Jobs'), jobsForm, jobsOut,
      h('h2', {}, 'A job by id'), jobForm, jobOut,
      h('h2', {}, 'Groups'),
      groups.length ? table(['group', 'weight', 'paused', 'rate', 'concurrency', 'ready', 'leased', 'jobs', ''],
        groups.map(g => [g.name, g.weight, g.paused, show(g.rate), show(g.concurrency), g.ready, g.leased, g.jobs,
          Number(g.paused) === 1
            ? h('button', { class: 'secondary', 'data-resume-group': g.name, onclick: () => act('resume ' + g.name, 'QUEUE.RESUME', key, 'GROUP', g.name) }, 'Resume')
            : h('button', { class: 'secondary', 'data-pause-group': g.name, onclick: () => act('pause ' + g.name, 'QUEUE.PAUSE', key, 'GROUP', g.name) }, 'Pause')]), [5, 6, 7])
        : h('p', { class: 'muted' }, 'No named groups.'),
      h('h2', {}, 'Limits'), configForm, groupForm,
      h('h2', {}, 'Schedules'),
      schedules.length ? table(['name', 'when', 'next run', 'runs', 'missed', ''],
        schedules.map(sc => [sc.name, sc.when, sc.next === null ? (Number(sc.done) === 1 ? 'done' : '') : new Date(Number(sc.next)).toLocaleString(),
          sc.runs, sc.missed, h('button', { class: 'danger', 'data-unschedule': sc.name, onclick: () => act('unschedule ' + sc.name, 'QUEUE.UNSCHEDULE', key, sc.name) }, 'Unschedule')]), [3])
        : h('p', { class: 'muted' }, 'No schedules.'));
    if (!listedOnce) {
      listedOnce = true;
      listJobs();
    }
    chart(box, 'jobs by state (sampled while this page is open)', ['ready', 'delayed', 'leased', 'dead'], { yLabel: 'jobs' })
      .set(history.t.slice(), history.ready.slice(), history.delayed.slice(), history.leased.slice(), history.dead.slice());
  });
  p.start();
}

// ---- Sizing

/** What idem size computes, as plots: bytes against the rate asked for, rate against items. */
function sizingPage(query) {
  const params = new URLSearchParams(query || '');
  const capacity = h('input', { id: 'sizing-capacity', value: params.get('capacity') || '1000000', size: 12 });
  const error = h('input', { id: 'sizing-error', value: params.get('error') || '0.01', size: 8 });
  ++pageToken;
  clearTimeout(refreshTimer);
  const out = h('div', { id: 'sizing' });
  main.replaceChildren(h('h1', {}, 'Sizing'),
    h('p', { class: 'muted' }, 'What each filter needs for N items at false-positive rate E, from the core\'s own sizing (what BF.RESERVE and CF.RESERVE allocate, and idem size prints).'),
    h('form', { class: 'inline', onsubmit: ev => {
      ev.preventDefault();
      location.hash = '#/sizing?' + new URLSearchParams({ capacity: capacity.value, error: error.value });
    } }, 'N items', capacity, 'at rate E', error, h('button', { type: 'submit' }, 'Size')), out);
  (async () => {
    try {
      const s = await sizing(capacity.value, error.value);
      const names = { bloom: 'Bloom (blocked, BF.RESERVE)', classic: 'Bloom (classic, RedisBloom layout)', cuckoo: 'Cuckoo (CF.RESERVE)',
        dedupFilter: 'DEDUP FILTER, N claims a day', dedupExact: 'DEDUP EXACT, its memory (rows on disk)' };
      const rows = Object.entries(names).filter(([k]) => s.chosen[k] !== undefined).map(([k, label]) => {
        const c = s.chosen[k];
        return [label, c ? h('span', { 'data-bytes': k }, num(c.bytes)) : 'too large', c ? (8 * c.bytes / s.capacity).toFixed(2) : '',
          c ? (k === 'cuckoo' ? c.shape + '-bit fingerprints' : c.shape + ' hashes') : ''];
      });
      const bound = s.capacity * Math.log2(1 / s.rate) / 8;
      rows.push(['lower bound, N · log2(1/E) bits', num(Math.round(bound)), Math.log2(1 / s.rate).toFixed(2), '']);
      // The plotted rate nearest E (E itself, up to rounding): the dedup tables' figures at E.
      const k = s.errors.reduce((best, e, j) => (Math.abs(Math.log(e / s.rate)) < Math.abs(Math.log(s.errors[best] / s.rate)) ? j : best), 0);
      for (const d of ['dedupFilter', 'dedupExact']) {
        const v = s.bytes[d][k];
        if (v !== null) rows.push([names[d], h('span', { 'data-bytes': d }, num(Math.round(v))), (8 * v / s.capacity).toFixed(2), '24 h window']);
      }
      if (s.recent.slots !== null) {
        rows.push(['DEDUP RECENT / RecentSet remembering 90 % after N more', h('span', { 'data-bytes': 'recent' }, num(s.recent.bytes)),
          (8 * s.recent.bytes / s.capacity).toFixed(2), num(s.recent.slots) + ' slots']);
      }
      const bytesBox = h('div', {});
      const ratesBox = h('div', {});
      const recentBox = h('div', {});
      out.replaceChildren(table(['structure', 'bytes', 'bits per item', 'shape'], rows, [1, 2]), bytesBox, ratesBox, recentBox);
      if (s.recent.slots !== null) {
        chart(recentBox, 'a RecentSet (DEDUP ... RECENT) of ' + num(s.recent.slots) + ' slots: the chance it still recognises an item after so many further distinct items (the point: N, 0.9)',
          ['remembered', { label: '(N, 0.9)', points: true, line: false }],
          { time: false, xLabel: 'further distinct items', yLabel: 'probability', height: 240 })
          .set(...aligned({ xs: s.items, ys: s.recent.remember }, { xs: [s.capacity], ys: [0.9] }));
      }
      const pos = v => (v > 0 ? v : null);
      const [exs, ...eys] = aligned(
        { xs: s.errors, ys: s.bytes.bloom }, { xs: s.errors, ys: s.bytes.classic },
        { xs: s.errors, ys: s.bytes.cuckoo }, { xs: s.errors, ys: s.bytes.bound },
        { xs: s.errors, ys: s.bytes.dedupFilter }, { xs: s.errors, ys: s.bytes.dedupExact },
        { xs: [s.rate], ys: [(s.chosen.bloom || {}).bytes || null] });
      chart(bytesBox, 'bytes against the false-positive rate asked for, for N = ' + num(s.capacity) + ' (the point: E = ' + s.rate + ')',
        [names.bloom, names.classic, names.cuckoo, 'lower bound', names.dedupFilter, names.dedupExact, { label: 'chosen E', points: true, line: false }],
        { time: false, logX: true, logY: true, xLabel: 'false-positive rate', yLabel: 'bytes', height: 280 })
        .set(exs, ...eys);
      const [ixs, ...iys] = aligned(
        { xs: s.items, ys: s.rates.bloom.map(pos) }, { xs: s.items, ys: s.rates.classic.map(pos) },
        { xs: s.items, ys: s.rates.cuckoo.map(pos) }, { xs: [s.capacity], ys: [s.rate] });
      chart(ratesBox, 'false-positive rate against items held, for filters sized for N = ' + num(s.capacity) + ' at E = ' + s.rate + ' (the point)',
        [names.bloom, names.classic, names.cuckoo, { label: '(N, E)', points: true, line: false }],
        { time: false, logY: true, xLabel: 'items', yLabel: 'rate', height: 280 })
        .set(ixs, ...iys);
    } catch (e) {
      out.replaceChildren(errorBox(e));
    }
  })();
}

// ---- Slow log and latency

function serverPage() {
  const out = h('div', { class: 'muted' });
  const p = page('Slow log and latency', async body => {
    const [slow, len, latest, threshold, slower] = await Promise.all([
      call('SLOWLOG', 'GET', 128), call('SLOWLOG', 'LEN'), call('LATENCY', 'LATEST'),
      call('CONFIG', 'GET', 'latency-monitor-threshold'), call('CONFIG', 'GET', 'slowlog-log-slower-than')]);
    body.replaceChildren(out,
      h('h2', {}, 'SLOWLOG (', h('span', { 'data-k': 'slowlog-len' }, len), ' entries; slowlog-log-slower-than ',
        Object.values(slower)[0], ' µs) ',
        h('button', { class: 'secondary', id: 'slowlog-reset', onclick: async () => { out.textContent = 'SLOWLOG RESET: ' + await call('SLOWLOG', 'RESET'); p.start(); } }, 'Reset')),
      slow.length ? table(['id', 'time', 'µs', 'command', 'client'], slow.map(e =>
        [e[0], new Date(Number(e[1]) * 1000).toLocaleString(), num(e[2]), e[3].join(' '), e[4] + (e[5] ? ' ' + e[5] : '')]), [0, 2])
        : h('p', { class: 'muted' }, 'Empty.'),
      h('h2', {}, 'LATENCY LATEST (latency-monitor-threshold ', Object.values(threshold)[0], ' ms) ',
        h('button', { class: 'secondary', id: 'latency-reset', onclick: async () => { out.textContent = 'LATENCY RESET: ' + await call('LATENCY', 'RESET'); p.start(); } }, 'Reset')),
      latest.length ? table(['event', 'time', 'latest ms', 'max ms'], latest.map(e =>
        [e[0], new Date(Number(e[1]) * 1000).toLocaleString(), e[2], e[3]]), [2, 3])
        : h('p', { class: 'muted' }, 'No event at or over the threshold (0: the monitor is off).'));
  });
  p.start();
}

// ---- Sign-in and routing

function showSignIn() {
  ++pageToken;
  clearTimeout(refreshTimer);
  const pw = h('input', { type: 'password', id: 'password', placeholder: 'the server\'s password', autocomplete: 'current-password' });
  const err = h('div', { class: 'error', id: 'signin-error' });
  main.replaceChildren(h('form', { class: 'signin', onsubmit: async ev => {
    ev.preventDefault();
    const res = await fetch('/console/api/login', {
      method: 'POST',
      headers: { 'X-Idem-Console': '1', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: pw.value }),
      credentials: 'same-origin',
    });
    if (res.ok) route();
    else err.textContent = (await res.json()).error || 'refused';
  } }, h('h1', {}, 'Sign in'), h('p', { class: 'muted' }, 'This server has a password (requirepass).'), pw,
  h('button', { type: 'submit', id: 'signin' }, 'Sign in'), err));
}

async function route() {
  const session = await (await fetch('/console/api/session', { credentials: 'same-origin' })).json();
  if (session.password && !session.signedIn) {
    showSignIn();
    return;
  }
  const hash = location.hash || '#/overview';
  const m = hash.match(/^#\/([a-z]+)(?:[/?](.*))?$/) || [null, 'overview', ''];
  const [name, arg] = [m[1], m[2] || ''];
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.page === name || (name === 'key' && a.dataset.page === 'keys') || (name === 'queue' && a.dataset.page === 'queues'));
  }
  switch (name) {
    case 'keys': keysPage(arg); break;
    case 'key': keyPage(decodeURIComponent(arg)); break;
    case 'queues': queuesPage(); break;
    case 'queue': queuePage(decodeURIComponent(arg)); break;
    case 'server': serverPage(); break;
    case 'sizing': sizingPage(arg); break;
    default: overviewPage();
  }
}

window.addEventListener('hashchange', route);
route();
