/** Environment entries that switch off every proxy variable, so a test's requests go where it says. */
export const NO_PROXY_ENV = {
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};
