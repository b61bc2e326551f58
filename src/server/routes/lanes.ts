import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { Lane, LaneCreate, LaneDeleted, LaneList, LaneParams, LanePatch } from '../../shared/schemas/lanes';

const notFound = { 404: { description: 'No such lane (`lane_not_found`)', schema: ref(ErrorBody) } };
const conflict = {
  409: {
    description: '`lane_exists`: the laneid is taken; `port_in_use`: another lane uses that port; `lane_busy`: a payment or command holds the lane',
    schema: ref(ErrorBody),
  },
};
const TAGS = ['Card Present EMV'];

export const listLanes = defineRoute({
  method: 'get',
  path: '/api/lanes',
  operationId: 'listLanes',
  tags: TAGS,
  summary: 'Lanes: the payment devices on this machine\'s serial ports, with their live status',
  description:
    'Each lane is a payment device on a serial port of the machine running Laneway. `status` and `activity` are live; every change is also a `lane.status` event on /api/events (entity `lane`).',
  responses: { 200: { description: 'Lanes, by laneid', schema: LaneList } },
  async handler({ engine }) {
    return { body: { lanes: await engine.lanes.list() } };
  },
});

export const createLane = defineRoute({
  method: 'post',
  path: '/api/lanes',
  operationId: 'createLane',
  tags: TAGS,
  summary: 'Add a lane',
  description:
    'Defaults: name `Lane <laneid>`, 115200 baud, 8 data bits, no parity, 1 stop bit, the account currency, tips off, signature captured on the device for cards that ask for one, 90 s to present a card. The port is opened at once (and reopened with backoff while it is missing); the device gets its settings (DeviceSetup) whenever it connects.',
  body: LaneCreate,
  responses: { 201: { description: 'The new lane', schema: ref(Lane) }, ...conflict },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.lanes.create(body) };
  },
});

export const getLane = defineRoute({
  method: 'get',
  path: '/api/lanes/:laneid',
  operationId: 'getLane',
  tags: TAGS,
  summary: 'One lane with its live status',
  params: LaneParams,
  responses: { 200: { description: 'The lane', schema: ref(Lane) }, ...notFound },
  async handler({ engine, params }) {
    return { body: await engine.lanes.get(params.laneid) };
  },
});

export const updateLane = defineRoute({
  method: 'patch',
  path: '/api/lanes/:laneid',
  operationId: 'updateLane',
  tags: TAGS,
  summary: 'Change a lane\'s settings',
  description:
    'Port settings (`port_path`, `baud_rate`, `data_bits`, `parity`, `stop_bits`) and `enabled` reopen the port, so they are refused with 409 `lane_busy` while a payment or command holds the lane. Other settings are sent to the device at once when it is idle.',
  params: LaneParams,
  body: LanePatch,
  responses: { 200: { description: 'The lane', schema: ref(Lane) }, ...notFound, ...conflict },
  async handler({ engine, params, body }) {
    return { body: await engine.lanes.update(params.laneid, body) };
  },
});

export const deleteLane = defineRoute({
  method: 'delete',
  path: '/api/lanes/:laneid',
  operationId: 'deleteLane',
  tags: TAGS,
  summary: 'Remove a lane (its port is closed)',
  description: 'Refused with 409 `lane_busy` while a payment or command holds the lane. Signatures stored for its payments stay.',
  params: LaneParams,
  responses: { 200: { description: 'Removed', schema: LaneDeleted }, ...notFound, ...conflict },
  async handler({ engine, params }) {
    await engine.lanes.remove(params.laneid);
    return { body: { laneid: params.laneid, deleted: true as const } };
  },
});

export const laneRoutes = [listLanes, createLane, getLane, updateLane, deleteLane];
