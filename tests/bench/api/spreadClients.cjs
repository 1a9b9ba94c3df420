// Autocannon's setupClient for a target with a list of requests (loaded by path in its worker).
// Every connection would start at the list's first request and walk it in step with the others;
// each starts at its own place instead, so at any moment the connections stand for different
// users, as the add-ons of many users would.
let started = 0;

module.exports = (client) => {
  const requests = client.opts.requests;
  const start = started++ % requests.length;
  client.setRequests([...requests.slice(start), ...requests.slice(0, start)]);
};
