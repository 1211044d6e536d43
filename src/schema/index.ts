import { builder } from './builder.js';
import './scalars.js';
import './enums.js';
import './account.js';
import './region.js';
import './brand.js';
import './gift.js';
import './campaign.js';
import './funds.js';

export const schema = builder.toSchema();
