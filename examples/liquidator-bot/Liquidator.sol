// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20 {
    function approve(address, uint256) external returns (bool);
}

interface IWETH {
    function deposit() external payable;
    function withdraw(uint256) external;
}

interface IPool {
    function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken) external;
}

/// A liquidator's executor: it holds the debt tokens it repays with (WETH from its deployment,
/// USDC sent to it), calls Aave's `liquidationCall` for the most the close factor allows, keeps
/// the collateral, and pays the block's builder a fixed amount of its WETH by a direct transfer
/// to block.coinbase. If the position is no longer liquidatable (a rival went first, or the
/// oracle round did not land), the call reverts and the bundle is left out. Only its owner may call.
contract Liquidator {
    IWETH public immutable weth;
    IPool public immutable pool;
    address public immutable owner;

    constructor(IWETH weth_, IPool pool_, address[] memory tokens) payable {
        weth = weth_;
        pool = pool_;
        owner = msg.sender;
        for (uint256 i = 0; i < tokens.length; i++) IERC20(tokens[i]).approve(address(pool_), type(uint256).max);
        if (msg.value > 0) weth_.deposit{value: msg.value}();
    }

    receive() external payable {}

    /// Liquidates `user`'s `debt` against its `collateral`, then pays the coinbase `payment` wei of WETH.
    function liquidate(address collateral, address debt, address user, uint256 payment) external {
        require(msg.sender == owner, "not the owner");
        pool.liquidationCall(collateral, debt, user, type(uint256).max, false);
        if (payment > 0) {
            weth.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }
}
