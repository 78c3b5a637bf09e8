/**
 * What the shell hands a third-party dashboard's web half (docs/plugins.md, "The web half").
 *
 * A pip-installed plugin's `index.js` is plain JavaScript that the server serves from the plugin's package
 * (`GET /api/plugin-web/<name>/index.js`) and the page imports when it starts: it cannot import the shell's
 * bundled Preact or library by name. Its default export is a function that receives one {@link RidgelineApi} and
 * returns a {@link WebDashboard}. Both are declared in ./pluginTypes.ts, the file docs/plugins.md gives authors to
 * copy (tests/plugins/test_web_recipe.py keeps the two equal). The API is versioned: a new member keeps
 * {@link API_VERSION}; a member changed or removed raises it, so a module can check `ridgeline.version`.
 */
import { Fragment, h } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
import { ApiError, getJsonAt, postJsonAt } from "@api/client";
import { colourFor } from "./palette";
import type { RidgelineApi, WebDashboard } from "./pluginTypes";
import { settings, useUrlState } from "./state";

export type { RidgelineApi, WebDashboard };

export const API_VERSION: RidgelineApi["version"] = 1;

/** The API handed to the plugin `name`'s module. */
export function pluginApi(name: string): RidgelineApi {
  return Object.freeze({
    version: API_VERSION,
    plugin: Object.freeze({ name }),
    h,
    Fragment,
    useState,
    useEffect,
    useLayoutEffect,
    useMemo,
    useCallback,
    useRef,
    useReducer,
    useUrlState,
    settings: Object.freeze({
      get: <T>(key: string, initial: T) => settings().get(key, initial),
      set: <T>(key: string, value: T) => settings().set(key, value),
      subscribe: (key: string, listener: () => void) => settings().subscribe(key, listener),
    }),
    getJson: getJsonAt,
    postJson: postJsonAt,
    ApiError,
    colourFor,
  });
}
