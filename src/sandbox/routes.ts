// The reward API's route table, relative to /papi/v1: every endpoint of its published description plus those
// production adds (docs/reward-api.md). Its `METHOD path` keys are the names used in stats and fault rules.
import { ping } from './account.js';
import { getBrand, listBrands, listRegions } from './brands.js';
import { routeKey, type Route } from './context.js';
import { addFunds, getFunds } from './funds.js';
import { cancelGift, getGift, listGifts, resendGift, resendGiftByBody } from './gifts.js';
import { getLinks } from './links.js';
import { createCampaign, createDirectLinks, createEmbedded, getCampaign } from './orders.js';

export const API_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/ping', handler: ping },
  { method: 'POST', path: '/campaign', handler: createCampaign },
  { method: 'GET', path: '/campaign/:id', handler: getCampaign },
  { method: 'POST', path: '/direct_links', handler: createDirectLinks },
  { method: 'GET', path: '/links/:id', handler: getLinks },
  { method: 'POST', path: '/embedded', handler: createEmbedded },
  { method: 'GET', path: '/gifts', handler: listGifts },
  { method: 'PUT', path: '/gifts', handler: resendGiftByBody },
  { method: 'GET', path: '/gifts/:uuid', handler: getGift },
  { method: 'PUT', path: '/gifts/:uuid', handler: resendGift },
  { method: 'DELETE', path: '/gifts/:uuid', handler: cancelGift },
  { method: 'GET', path: '/brands', handler: listBrands },
  { method: 'GET', path: '/brands/:code', handler: getBrand },
  { method: 'GET', path: '/regions', handler: listRegions },
  { method: 'GET', path: '/funds', handler: getFunds },
  { method: 'POST', path: '/funds', handler: addFunds },
];

export const API_ROUTE_KEYS: readonly string[] = API_ROUTES.map(routeKey);
